/*
 * builtin_helpers.c — the helper functions every generated tool.py carries below run():
 * reading the CSV with clear errors, column checks, JSON-safe cells, the result envelope with
 * its Markdown summary and, for charts, the PNG, its data file and the seed-002 visualization
 * manifest (docs/generate.md#what-a-generated-tool-looks-like).
 */
#include "gen/builtin_code_int.h"

static const char load_py[] =
    "def load_csv(file_path: str) -> pd.DataFrame:\n"
    "    \"\"\"Read a CSV file, with clear errors.\"\"\"\n"
    "    try:\n"
    "        return pd.read_csv(file_path)\n"
    "    except FileNotFoundError:\n"
    "        raise FileNotFoundError(f\"File not found: {file_path}\") from None\n"
    "    except IsADirectoryError:\n"
    "        raise ValueError(f\"{file_path} is a directory, not a CSV file\") from None\n"
    "    except pd.errors.EmptyDataError:\n"
    "        raise ValueError(f\"{file_path} is empty: a CSV file needs at least a header row\") from None\n"
    "    except pd.errors.ParserError as e:\n"
    "        raise ValueError(f\"{file_path} is not a valid CSV file: {e}\") from None\n"
    "    except UnicodeDecodeError:\n"
    "        raise ValueError(f\"{file_path} is not UTF-8 text\") from None\n\n\n"
    "def require_columns(df: pd.DataFrame, columns: list, file_path: str) -> None:\n"
    "    \"\"\"Raise a ValueError naming the missing columns and listing the available ones.\"\"\"\n"
    "    missing = [str(c) for c in columns if c not in df.columns]\n"
    "    if missing:\n"
    "        raise ValueError(f\"Column(s) not found in {file_path}: {', '.join(missing)}. \"\n"
    "                         f\"Available columns: {', '.join(map(str, df.columns))}\")\n\n\n"
    "def require_numeric(df: pd.DataFrame, columns: list, file_path: str) -> None:\n"
    "    \"\"\"Raise a ValueError naming the columns that are not numeric (an empty read has no types).\"\"\"\n"
    "    bad = [str(c) for c in columns if not pd.api.types.is_numeric_dtype(df[c])]\n"
    "    if bad and len(df):\n"
    "        numeric = [str(c) for c in df.columns if pd.api.types.is_numeric_dtype(df[c])]\n"
    "        raise ValueError(f\"Column(s) of {file_path} are not numeric: {', '.join(bad)}. \"\n"
    "                         f\"Numeric columns: {', '.join(numeric) or 'none'}\")\n\n\n"
    "def names(columns: list) -> str:\n"
    "    \"\"\"Column names for a title: a, b and c.\"\"\"\n"
    "    columns = [str(c) for c in columns]\n"
    "    return \", \".join(columns[:-1]) + \" and \" + columns[-1] if len(columns) > 1 else \"\".join(columns)\n\n\n"
    "def keep(df: pd.DataFrame, mask, why: str, dropped: list) -> pd.DataFrame:\n"
    "    \"\"\"The rows where mask holds; how many others there were, and why, go into dropped.\"\"\"\n"
    "    n = int(len(df) - mask.sum())\n"
    "    if n:\n"
    "        dropped.append({\"rows\": n, \"why\": why})\n"
    "    return df[mask]\n\n\n"
    "def skipped(df: pd.DataFrame, columns: list, what: str, dropped: list) -> None:\n"
    "    \"\"\"Rows missing a value that is computed on: pandas leaves them out of that computation.\"\"\"\n"
    "    for c in columns:\n"
    "        n = int(df[c].isna().sum())\n"
    "        if n:\n"
    "            dropped.append({\"rows\": n, \"why\": f\"{c} is missing: left out of {what}\"})\n\n\n";

static const char result_py[] =
    "def cell(value):\n"
    "    \"\"\"A value as JSON: None when missing, plain numbers and booleans, text otherwise.\"\"\"\n"
    "    if value is None:\n"
    "        return None\n"
    "    try:\n"
    "        if pd.isna(value):\n"
    "            return None\n"
    "    except (TypeError, ValueError):\n"
    "        pass\n"
    "    if isinstance(value, pd.Timestamp):\n"
    "        return value.isoformat()\n"
    "    if hasattr(value, \"item\"):\n"
    "        value = value.item()  # numpy scalar -> Python\n"
    "    if isinstance(value, (bool, int, float)):\n"
    "        return value\n"
    "    return str(value)\n\n\n"
    "def finish(file_path: str, title: str, rows_in: int, rows_used: int, dropped: list,\n"
    "           table: pd.DataFrame, details: dict, limit: int) -> dict:\n"
    "    \"\"\"The result: the table as rows (at most limit), what was read and used, and a summary.\"\"\"\n"
    "    columns = [str(c) for c in table.columns]\n"
    "    shown = min(limit, MAX_ROWS)\n"
    "    rows = [{c: cell(v) for c, v in zip(columns, record)}\n"
    "            for record in table.head(shown).itertuples(index=False, name=None)]\n"
    "    value = details.pop(\"value\", None)\n"
    "    if value is None and len(table) == 1 and len(columns) == 1:\n"
    "        value = table.iloc[0, 0]\n"
    "    result = {\n"
    "        \"file_path\": file_path,\n"
    "        \"title\": title,\n"
    "        \"rows_in\": rows_in,\n"
    "        \"rows_processed\": rows_in,\n"
    "        \"rows_used\": rows_used,\n"
    "        \"rows_dropped\": dropped,\n"
    "        \"columns\": columns,\n"
    "        \"rows\": rows,\n"
    "        \"row_count\": len(table),\n"
    "        \"truncated\": len(table) > shown,\n"
    "        \"value\": cell(value),\n"
    "        \"details\": {k: cell(v) for k, v in details.items()},\n"
    "    }\n";

static const char markdown_py[] =
    "def markdown(r: dict) -> str:\n"
    "    \"\"\"The title, the chart if any, the first 20 rows as a table, and what was read and used.\"\"\"\n"
    "    lines = [f\"## {r['title']}\", \"\"]\n"
    "    if \"chart_file\" in r:\n"
    "        lines += [f\"![{r['title']}]({r['chart_file']})\", \"\"]\n"
    "    if r[\"columns\"]:\n"
    "        lines.append(\"| \" + \" | \".join(c.replace(\"|\", \"\\\\|\") for c in r[\"columns\"]) + \" |\")\n"
    "        lines.append(\"|\" + \" --- |\" * len(r[\"columns\"]))\n"
    "        for row in r[\"rows\"][:20]:\n"
    "            lines.append(\"| \" + \" | \".join(str(row[c]).replace(\"|\", \"\\\\|\") for c in r[\"columns\"]) + \" |\")\n"
    "        if r[\"row_count\"] > min(20, len(r[\"rows\"])):\n"
    "            lines += [\"\", f\"{r['row_count'] - min(20, len(r['rows']))} more rows are not shown.\"]\n"
    "    lines += [\"\", f\"{r['rows_in']} rows of {r['file_path']} read, {r['rows_used']} used.\"]\n"
    "    lines += [f\"- {d['rows']} rows: {d['why']}\" for d in r[\"rows_dropped\"]]\n"
    "    return \"\\n\".join(lines) + \"\\n\"\n";

static const char draw_head_py[] =
    "\n\ndef draw(table: pd.DataFrame, x, ys: list, title: str) -> None:\n"
    "    \"\"\"The chart (PNG), the plotted table (CSV) and the visualization manifest.\"\"\"\n"
    "    fig, ax = plt.subplots(figsize=(8, 4.5))\n";

static const char draw_tail_py[] =
    "    ax.set_title(title)\n"
    "    fig.tight_layout()\n"
    "    fig.savefig(CHART_FILE, dpi=100, metadata={\"Software\": None})  # no version: stable bytes\n"
    "    plt.close(fig)\n"
    "    table.to_csv(DATA_FILE, index=False)\n"
    "    outputs = [{\"id\": \"data\", \"type\": \"table\", \"title\": title, \"dataFile\": DATA_FILE,\n"
    "                \"config\": {\"columns\": [str(c) for c in table.columns]}}]\n"
    "    if KIND:\n"
    "        config = {\"xColumn\": str(x), \"yColumn\": [str(y) for y in ys] if len(ys) > 1 else str(ys[0]),\n"
    "                  \"xLabel\": str(x), \"yLabel\": \", \".join(map(str, ys))}\n"
    "        if KIND == \"pie_chart\":\n"
    "            config = {\"labelColumn\": str(x), \"valueColumn\": str(ys[0])}\n"
    "        outputs.append({\"id\": \"chart\", \"type\": KIND, \"title\": title, \"dataFile\": DATA_FILE,\n"
    "                        \"config\": config})\n"
    "    with open(MANIFEST_FILE, \"w\", encoding=\"utf-8\") as f:\n"
    "        json.dump({\"version\": \"1.0\", \"outputs\": outputs}, f, indent=2)\n"
    "        f.write(\"\\n\")\n";

/* The drawing statements of one chart kind, and its seed-002 output type (None: table only). */
static void draw_kind(tg_buf *b, bt_chart c)
{
    switch (c) {
    case BT_BAR:
        tg_buf_puts(b, "    KIND = \"bar_chart\"\n"
                       "    ax.bar(table[x].astype(str), table[ys[0]], color=\"#4C72B0\")\n"
                       "    ax.set_xlabel(str(x))\n    ax.set_ylabel(str(ys[0]))\n"
                       "    if len(table) > 6:\n"
                       "        plt.setp(ax.get_xticklabels(), rotation=45, ha=\"right\")\n");
        break;
    case BT_LINE:
        tg_buf_puts(b, "    KIND = \"line_chart\"\n"
                       "    positions = range(len(table))\n"
                       "    for y in ys:\n"
                       "        ax.plot(positions, table[y], label=str(y))\n"
                       "    if x is not None:\n"
                       "        step = max(1, len(table) // 8)\n"
                       "        ax.set_xticks(list(positions)[::step])\n"
                       "        ax.set_xticklabels([str(v) for v in table[x]][::step], rotation=30, ha=\"right\")\n"
                       "        ax.set_xlabel(str(x))\n"
                       "    if len(ys) > 1:\n"
                       "        ax.legend()\n");
        break;
    case BT_SCATTER:
        tg_buf_puts(b, "    KIND = \"scatter\"\n"
                       "    ax.scatter(table[x], table[ys[0]], s=12, color=\"#4C72B0\")\n"
                       "    ax.set_xlabel(str(x))\n    ax.set_ylabel(str(ys[0]))\n");
        break;
    case BT_HISTOGRAM:
        tg_buf_puts(b, "    KIND = \"bar_chart\"\n"
                       "    ax.bar(table[\"bin_start\"], table[\"count\"], width=table[\"bin_end\"] - "
                       "table[\"bin_start\"],\n           align=\"edge\", color=\"#4C72B0\", edgecolor=\"white\")\n"
                       "    ax.set_ylabel(\"count\")\n");
        break;
    case BT_HEATMAP:
        tg_buf_puts(b, "    KIND = None  # seed 002 has no heatmap type: the table is described\n"
                       "    matrix = table.set_index(table.columns[0])\n"
                       "    image = ax.imshow(matrix.to_numpy(dtype=float), cmap=\"viridis\", aspect=\"auto\")\n"
                       "    ax.set_xticks(range(matrix.shape[1]))\n"
                       "    ax.set_xticklabels([str(c) for c in matrix.columns], rotation=45, ha=\"right\")\n"
                       "    ax.set_yticks(range(matrix.shape[0]))\n"
                       "    ax.set_yticklabels([str(i) for i in matrix.index])\n"
                       "    fig.colorbar(image, ax=ax)\n");
        break;
    case BT_PIE:
        tg_buf_puts(b, "    KIND = \"pie_chart\"\n"
                       "    ax.pie(table[ys[0]], labels=table[x].astype(str), autopct=\"%1.1f%%\")\n");
        break;
    default:
        break;
    }
}

static const char rate_py[] =
    "YES = (\"1\", \"1.0\", \"true\", \"yes\")  # how a yes/no column says yes\n\n\n"
    "def rate(values: pd.Series) -> float:\n"
    "    \"\"\"The share (0 to 1) of the values that are yes; missing values are left out.\"\"\"\n"
    "    v = values.dropna()\n"
    "    return float(v.astype(str).str.lower().isin(YES).mean()) if len(v) else float(\"nan\")\n\n\n"
    "def percent(values: pd.Series) -> float:\n"
    "    \"\"\"The same share as a percentage (0 to 100).\"\"\"\n"
    "    return rate(values) * 100\n\n\n";

void bc_helpers(tg_buf *b, const bt_plan *p, const tg_dataset *ds)
{
    (void)ds;
    for (size_t a = 0; a < p->naggs; a++)
        if (p->aggs[a] == BT_RATE || p->aggs[a] == BT_PERCENT) {
            tg_buf_puts(b, rate_py);
            break;
        }
    tg_buf_puts(b, load_py);
    tg_buf_puts(b, result_py);
    if (p->chart)
        tg_buf_puts(b, "    result.update({\"chart_file\": CHART_FILE, \"data_file\": DATA_FILE,\n"
                       "                   \"manifest_file\": MANIFEST_FILE})\n");
    tg_buf_puts(b, "    result[\"summary_markdown\"] = markdown(result)\n    return result\n\n\n");
    tg_buf_puts(b, markdown_py);
    if (p->chart) {
        tg_buf_puts(b, draw_head_py);
        draw_kind(b, p->chart);
        tg_buf_puts(b, draw_tail_py);
    }
}
