"""Sum units per region and describe five charts of them (fixture of tests/cli/present.sh)."""
import csv
import json


def run(file_path):
    with open(file_path, newline="") as f:
        rows = list(csv.DictReader(f))
    sums = {}
    for r in rows:
        if r["region"]:
            sums[r["region"]] = sums.get(r["region"], 0) + int(r["units"])
    regions = sorted(sums.items(), key=lambda kv: (-kv[1], kv[0]))
    with open("units.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["region", "units"])
        w.writerows(regions)
    with open("rows.json", "w") as f:
        json.dump([{"month": int(r["month"]), "units": int(r["units"]),
                    "price": float(r["price"])} for r in rows], f)
    outputs = [
        {"id": "t", "type": "table", "title": "Units", "dataFile": "units.csv"},
        {"id": "b", "type": "bar_chart", "title": "Units per region", "dataFile": "units.csv",
         "config": {"xColumn": "region", "yColumn": "units", "yLabel": "units"}},
        {"id": "l", "type": "line_chart", "title": "Units by row", "dataFile": "rows.json",
         "config": {"xColumn": "month", "yColumn": ["units", "price"]}},
        {"id": "s", "type": "scatter", "title": "Price and units", "dataFile": "rows.json",
         "config": {"xColumn": "price", "yColumn": "units"}},
        {"id": "p", "type": "pie_chart", "title": "Share", "dataFile": "units.csv",
         "config": {"labelColumn": "region", "valueColumn": "units"}},
    ]
    with open("visualization_manifest.json", "w") as f:
        json.dump({"version": "1.0", "outputs": outputs}, f)
    table = "| region | units |\n| --- | ---: |\n" + "".join(
        f"| {k} | {v} |\n" for k, v in regions)
    return {"regions": [{"region": k, "units": v} for k, v in regions],
            "rows_processed": len(rows), "summary_markdown": table}
