"""The built-in generator end to end, checked against pandas (run by tests/cli/builtin_gen.sh).

For each intent below: the generator compiles it against datasets read through the sandbox
(tests/unit/test_builtin.c --generate, which also runs the example to fill in its output), the
generated tool runs in the sandbox through `toolgen run`, and its result is compared with the
value this script computes independently with pandas from the same file. Then every generated
manifest must lint clean, a representative set must build with all their own tests passing,
and the intents it must refuse are refused with the closest phrasings and no files.

Datasets: tests/testdata/datasets/ (seaborn-data copies; see tests/testdata/README.md).
Prints "builtin_gen: N passed, M failed".
"""

import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import pandas as pd

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOLGEN = os.environ.get("TOOLGEN_ABS") or os.path.join(ROOT, os.environ.get("TOOLGEN", "bin/toolgen"))
TEST_BIN = os.path.join(ROOT, os.environ.get("TEST_BIN", "build/release/tests"))
GEN = os.path.join(TEST_BIN, "test_builtin")
DATASETS = os.path.join(ROOT, "tests", "testdata", "datasets")

passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print(f"FAIL {what}", file=sys.stderr)
    return cond


def close(a, b, tol=1e-9):
    if a is None or b is None or (isinstance(b, float) and math.isnan(b)):
        return (a is None) and (b is None or (isinstance(b, float) and math.isnan(b)))
    if isinstance(b, (int, float, np.integer, np.floating)) and not isinstance(b, bool):
        return isinstance(a, (int, float)) and abs(a - float(b)) <= tol * max(1, abs(a), abs(float(b)))
    return str(a) == str(b)


def rows_equal(got, want_df):
    """The tool's rows against a pandas DataFrame, row by row, column by column."""
    want = want_df.to_dict(orient="records")
    if len(got) != len(want):
        return False
    for g, w in zip(got, want):
        if set(g) != {str(k) for k in w}:
            return False
        if not all(close(g[str(k)], v) for k, v in w.items()):
            return False
    return True


def load(name):
    return pd.read_csv(os.path.join(DATASETS, name))


# ---- the intents, each with its independent pandas computation --------------------------------
# check(result, df) returns True when the tool's result is right; df is the dataset (first file).

def by_group(col, val, agg):
    def f(r, df):
        g = df.dropna(subset=[col] if isinstance(col, str) else col)
        want = g.groupby(col)[val].agg(agg).reset_index(name=f"{agg}_{val}")
        return rows_equal(r["rows"], want)
    return f


def value(v):
    return lambda r, df: close(r["value"], v(df))


def sizes(cols):
    return lambda r, df: rows_equal(r["rows"], df.dropna(subset=cols).groupby(cols).size().reset_index(name="count"))


def top_groups(col, val, agg, k, desc=True):
    def f(r, df):
        t = df.dropna(subset=[col]).groupby(col)[val].agg(agg).reset_index(name=f"{agg}_{val}")
        t = t.sort_values([f"{agg}_{val}", col], ascending=[not desc, True], kind="mergesort").head(k)
        return rows_equal(r["rows"], t)
    return f


def top_rows(col, k):
    def f(r, df):
        want = df[col].dropna().sort_values(ascending=False, kind="mergesort").head(k).tolist()
        return [row[col] for row in r["rows"]] == want
    return f


def shares(col):
    def f(r, df):
        s = df[col].dropna()
        want = s.value_counts()
        return (all(close(row["count"], want[row[col]]) and close(row["share"], want[row[col]] / len(s))
                    for row in r["rows"]) and len(r["rows"]) == len(want))
    return f


def corr(a, b, method="pearson"):
    return value(lambda df: df[a].corr(df[b], method=method))


def summary(cols):
    def f(r, df):
        return len(r["rows"]) == len(cols) and all(
            row["column"] == c and close(row["mean"], df[c].mean()) and close(row["std"], df[c].std())
            and close(row["median"], df[c].median()) and close(row["p75"], df[c].quantile(0.75))
            for row, c in zip(r["rows"], cols))
    return f


def missing_report(r, df):
    return all(close(row["missing"], int(df[row["column"]].isna().sum())) for row in r["rows"]) and \
        [row["column"] for row in r["rows"]] == list(df.columns)


def corr_matrix(r, df):
    m = df.select_dtypes("number").corr()
    return len(r["rows"]) == len(m) and all(
        close(row[c], m.loc[row["column"], c]) for row in r["rows"] for c in m.columns)


def outliers_iqr(col):
    def f(r, df):
        s = df[col]
        q1, q3 = s.quantile(0.25), s.quantile(0.75)
        mask = (s < q1 - 1.5 * (q3 - q1)) | (s > q3 + 1.5 * (q3 - q1))
        return r["row_count"] == int(mask.sum()) and close(r["details"]["upper"], q3 + 1.5 * (q3 - q1))
    return f


def histogram(col, bins):
    def f(r, df):
        counts, edges = np.histogram(df[col].dropna(), bins=bins)
        return [row["count"] for row in r["rows"]] == counts.tolist() and close(r["rows"][0]["bin_start"], edges[0])
    return f


def pivot(val, index, columns):
    def f(r, df):
        p = df.pivot_table(index=index, columns=columns, values=val, aggfunc="mean")
        return all(close(row.get(str(c)), p.loc[row[index], c]) for row in r["rows"] for c in p.columns) \
            and len(r["rows"]) == len(p)
    return f


# Row-sized results: the example returns the first 20 rows (limit 20) of the whole file's result.

def resample(date, val, period, agg):
    def f(r, df):
        d = df.dropna(subset=[date]).copy()
        d["period"] = pd.to_datetime(d[date]).dt.to_period(period).astype(str)
        if val is None:
            want = d.groupby("period").size().reset_index(name="count")
        else:
            want = d.groupby("period")[val].agg(agg).reset_index(name=f"{agg}_{val}")
        return r["row_count"] == len(want) and rows_equal(r["rows"], want.head(20))
    return f


def moving(date, val, window):
    def f(r, df):
        d = df.iloc[pd.to_datetime(df[date]).to_numpy().argsort(kind="mergesort")]
        want = d[val].rolling(window).mean().tolist()
        return all(close(row["moving_average"], w) for row, w in zip(r["rows"], want)) and \
            len(r["rows"]) == 20 and r["row_count"] == len(want)
    return f


def series(x, y):
    def f(r, df):
        d = df.dropna(subset=[x, y])
        d = d.iloc[pd.to_datetime(d[x]).to_numpy().argsort(kind="mergesort")]
        return [row[y] for row in r["rows"]] == d[y].tolist()[:20] and r["row_count"] == len(d)
    return f


def filtered(mask, then):
    return lambda r, df: then(r, df[mask(df)])


def merge_rows(other, key):
    def f(r, df):
        want = df.merge(load(other), on=key, how="inner", suffixes=("", "_other"))
        return r["row_count"] == len(want) and r["columns"] == [str(c) for c in want.columns]
    return f


def chart(check_rows):
    return lambda r, df: check_rows(r, df) and r.get("chart_file") == "chart.png"


CASES = [
    # tips
    ("c01", "average tip by day", ["tips.csv"], by_group("day", "tip", "mean")),
    ("c02", "what is the mean tip for each day?", ["tips.csv"], by_group("day", "tip", "mean")),
    ("c03", "tips per day on average", ["tips.csv"], by_group("day", "tip", "mean")),
    ("c04", "Average TIP per weekday", ["tips.csv"], by_group("day", "tip", "mean")),
    ("c05", "sum of total bill per sex", ["tips.csv"], by_group("sex", "total_bill", "sum")),
    ("c06", "median tip for smokers on Sunday", ["tips.csv"],
     value(lambda df: df[(df.smoker == "Yes") & (df.day == "Sun")].tip.median())),
    ("c07", "how many rows per day", ["tips.csv"], sizes(["day"])),
    ("c08", "top 2 days by total tip", ["tips.csv"], top_groups("day", "tip", "sum", 2)),
    ("c09", "which day has the highest average tip", ["tips.csv"], top_groups("day", "tip", "mean", 1)),
    ("c10", "share of each day", ["tips.csv"], shares("day")),
    ("c11", "correlation between tip and total bill", ["tips.csv"], corr("total_bill", "tip")),
    ("c12", "average tip where total bill is over 20 by time", ["tips.csv"],
     filtered(lambda df: df.total_bill > 20, by_group("time", "tip", "mean"))),
    ("c13", "bar chart of mean tip per day", ["tips.csv"], chart(by_group("day", "tip", "mean"))),
    ("c14", "pivot table of average tip by day and time", ["tips.csv"], pivot("tip", "day", "time")),
    ("c15", "pie chart of smoker shares", ["tips.csv"], chart(shares("smoker"))),
    ("c16", "average tip where day is not Sat or Sun", ["tips.csv"],
     value(lambda df: df[~df.day.isin(["Sat", "Sun"])].tip.mean())),
    # titanic
    ("c17", "average survived by class", ["titanic.csv"], by_group("class", "survived", "mean")),
    ("c18", "how many passengers per embark town", ["titanic.csv"], sizes(["embark_town"])),
    ("c19", "number of missing values per column", ["titanic.csv"], missing_report),
    ("c20", "average fare where age is missing", ["titanic.csv"],
     value(lambda df: df[df.age.isna()].fare.mean())),
    ("c21", "top 5 passengers by fare", ["titanic.csv"], top_rows("fare", 5)),
    ("c22", "number of distinct decks", ["titanic.csv"], value(lambda df: df.deck.nunique())),
    ("c23", "median fare where age is at least 60", ["titanic.csv"],
     value(lambda df: df[df.age >= 60].fare.median())),
    ("c24", "mean age by sex and class", ["titanic.csv"],
     lambda r, df: rows_equal(r["rows"], df.groupby(["sex", "class"]).age.mean().reset_index(name="mean_age"))),
    ("c25", "outliers in fare using the IQR rule", ["titanic.csv"], outliers_iqr("fare")),
    # penguins
    ("c26", "average body mass by species", ["penguins.csv"], by_group("species", "body_mass_g", "mean")),
    ("c27", "max flipper length per island", ["penguins.csv"], by_group("island", "flipper_length_mm", "max")),
    ("c28", "standard deviation of bill length by species", ["penguins.csv"],
     by_group("species", "bill_length_mm", "std")),
    ("c29", "histogram of body mass with 15 bins", ["penguins.csv"], chart(histogram("body_mass_g", 15))),
    ("c30", "count of penguins by species and sex", ["penguins.csv"], sizes(["species", "sex"])),
    ("c31", "summary statistics of bill depth and flipper length", ["penguins.csv"],
     summary(["bill_depth_mm", "flipper_length_mm"])),
    # iris
    ("c32", "correlation matrix", ["iris.csv"], corr_matrix),
    ("c33", "mean petal length per species", ["iris.csv"], by_group("species", "petal_length", "mean")),
    ("c34", "minimum sepal width by species", ["iris.csv"], by_group("species", "sepal_width", "min")),
    ("c35", "average sepal length where species is not setosa", ["iris.csv"],
     value(lambda df: df[df.species != "setosa"].sepal_length.mean())),
    # dowjones (row-sized results: the example reads the first 20 rows)
    ("c36", "yearly average price", ["dowjones.csv"], resample("Date", "Price", "Y", "mean")),
    ("c37", "3 month moving average of price", ["dowjones.csv"], moving("Date", "Price", 3)),
    ("c38", "line chart of price over time", ["dowjones.csv"], chart(series("Date", "Price"))),
    # mpg
    ("c39", "average mpg by origin", ["mpg.csv"], by_group("origin", "mpg", "mean")),
    ("c40", "number of cars per cylinders", ["mpg.csv"], sizes(["cylinders"])),
    ("c41", "mean horsepower where model year is between 75 and 80 by origin", ["mpg.csv"],
     filtered(lambda df: df.model_year.between(75, 80), by_group("origin", "horsepower", "mean"))),
    ("c42", "top 3 origins by average weight", ["mpg.csv"], top_groups("origin", "weight", "mean", 3)),
    # flights
    ("c43", "total passengers per year", ["flights.csv"], by_group("year", "passengers", "sum")),
    ("c44", "average passengers per month", ["flights.csv"], by_group("month", "passengers", "mean")),
    # healthexp
    ("c45", "average life expectancy by country", ["healthexp.csv"],
     by_group("Country", "Life_Expectancy", "mean")),
    ("c46", "max spending per country where year is over 2000", ["healthexp.csv"],
     filtered(lambda df: df.Year > 2000, by_group("Country", "Spending_USD", "max"))),
    # car_crashes
    ("c47", "correlation between speeding and alcohol", ["car_crashes.csv"], corr("speeding", "alcohol")),
    ("c48", "scatter plot of alcohol vs speeding", ["car_crashes.csv"],
     lambda r, df: r["row_count"] == len(df) and close(r["details"]["correlation"], df.speeding.corr(df.alcohol))),
    # two files
    ("c49", "merge the files on day", ["tips.csv", "day_info.csv"], merge_rows("day_info.csv", "day")),
    # words as people write them: relative clauses, contractions, numbers in words, units
    ("c50", "maximum age of passengers who survived", ["titanic.csv"],
     value(lambda df: df[df.survived == 1].age.max())),
    ("c51", "average age of passengers who didn't survive", ["titanic.csv"],
     value(lambda df: df[df.survived != 1].age.mean())),
    ("c52", "how many penguins weigh more than six thousand grams", ["penguins.csv"],
     value(lambda df: int((df.body_mass_g > 6000).sum()))),
    ("c53", "average fare by passenger class", ["titanic.csv"], by_group("class", "fare", "mean")),
    # a missing deck meets no condition on deck (the rows dropped say so)
    ("c54", "average fare excluding deck A", ["titanic.csv"],
     value(lambda df: df[df.deck.notna() & (df.deck != "A")].fare.mean())),
    ("c55", "average tip except on Sunday", ["tips.csv"], value(lambda df: df[df.day != "Sun"].tip.mean())),
    # the tip at the row of the smallest bill: that row, not the smallest of each column
    ("c57", "show passengers older than 70", ["titanic.csv"],
     lambda r, df: r["row_count"] == int((df.age > 70).sum()) and
     [row["age"] for row in r["rows"]] == df[df.age > 70].age.tolist()),
    ("c58", "how old was the youngest survivor", ["titanic.csv"],
     value(lambda df: df[df.survived == 1].age.min())),
    ("c59", "mean fare of survivors", ["titanic.csv"], value(lambda df: df[df.survived == 1].fare.mean())),
    # a superlative asking for the row gets the row: the value and the rest of it
    ("c60", "which passenger paid the highest fare", ["titanic.csv"],
     lambda r, df: len(r["rows"]) == 1 and r["rows"][0]["fare"] == df.fare.max()
     and r["rows"][0]["age"] == df.loc[df.fare.idxmax(), "age"]),
    ("c61", "the penguin with the longest flipper", ["penguins.csv"],
     lambda r, df: len(r["rows"]) == 1 and r["rows"][0]["flipper_length_mm"] == df.flipper_length_mm.max()
     and r["rows"][0]["species"] == df.loc[df.flipper_length_mm.idxmax(), "species"]),
    # "no age": missing where the column holds missing values and no zero
    ("c62", "how many passengers had no age recorded", ["titanic.csv"],
     value(lambda df: int(df.age.isna().sum()))),
    # the share of one value: its column's shares, the one asked among them
    ("c63", "proportion of female passengers", ["titanic.csv"], shares("sex")),
    ("c64", "the lightest Gentoo penguin", ["penguins.csv"],
     lambda r, df: len(r["rows"]) == 1
     and r["rows"][0]["body_mass_g"] == df[df.species == "Gentoo"].body_mass_g.min()),
    ("c56", "tip of the smallest bill", ["tips.csv"],
     lambda r, df: [row["tip"] for row in r["rows"]] == df.sort_values("total_bill", kind="mergesort").head(1).tip.tolist()),
]

# Built and tested with `toolgen build` (every operation kind; the others are linted).
BUILD = ["c01", "c10", "c13", "c14", "c19", "c25", "c29", "c36", "c37", "c49"]

REFUSED = [
    ("average salary by day", "tips.csv", ["'salary' is neither a column", "average total_bill by day"]),
    ("predict tomorrow's tip", "tips.csv", ["'predict'"]),
    ("train a neural network on the species", "iris.csv", ["'train'"]),
    ("median of species", "iris.csv", ["species holds string values"]),
    ("tip by day", "tips.csv", ["What should be computed of tip per day: the mean, sum"]),
    ("merge the files on day", "tips.csv", ["merging needs two data files"]),
    ("correlation of tip", "tips.csv", ["correlation needs two columns"]),
]


def toolgen(repo, *args):
    return subprocess.run([TOOLGEN, "-C", repo, *args], capture_output=True, text=True, timeout=600)


def generate(repo, name, intent, files):
    return subprocess.run([GEN, "--generate", repo, name, intent, *["data/" + f for f in files]],
                          capture_output=True, text=True, timeout=120)


def run_case(repo, name, intent, files, check_fn):
    g = generate(repo, name, intent, files)
    if not check(g.returncode == 0, f"{name} '{intent}': generate: {g.stderr.strip()}"):
        return
    plan, example = g.stdout.splitlines()[:2]
    r = toolgen(repo, "run", name, "--input", example, "--json")
    env = json.loads(r.stdout) if r.stdout.startswith("{") else {}
    if not check(env.get("success") is True, f"{name} '{intent}' ({plan}): run: {env.get('error') or r.stderr}"):
        return
    with open(os.path.join(repo, "manifests", name, "tool.manifest.yaml")) as f:
        check("output: {}" not in f.read(), f"{name}: the example's output is filled from its run")
    df = load(files[0])
    ok = False
    try:
        ok = check_fn(env["result"], df)
    except Exception as e:  # a check that cannot even compare is a failure, with the reason
        print(f"  {name}: {type(e).__name__}: {e}", file=sys.stderr)
    check(ok, f"{name} '{intent}' ({plan}): result differs from pandas: {json.dumps(env['result'])[:600]}")


def main():
    repo = tempfile.mkdtemp(prefix="tg-builtin-gen-")
    try:
        os.makedirs(os.path.join(repo, "data"))
        for f in os.listdir(DATASETS):
            shutil.copy(os.path.join(DATASETS, f), os.path.join(repo, "data", f))
        with open(os.path.join(repo, "toolgen.yaml"), "w") as f:
            f.write("config_version: 1\n")
        subprocess.run(["chmod", "-R", "o+rX", repo], check=True)
        intents = set()
        for name, intent, files, check_fn in CASES:
            intents.add(intent)
            run_case(repo, name, intent, files, check_fn)
        check(len(intents) >= 40, f"{len(intents)} distinct intents, want >= 40")
        check(len({f for _, _, fs, _ in CASES for f in fs}) >= 6, "at least six datasets")
        # The three phrasings of one request are one tool, byte for byte.
        same = [open(os.path.join(repo, "manifests", n, "tool.py")).read() for n in ("c01", "c02", "c03")]
        check(same[0] == same[1] == same[2], "c01-c03: the same code for three phrasings")
        lint = toolgen(repo, "lint")
        check(lint.returncode == 0, f"lint of the generated manifests: {lint.stdout}{lint.stderr}")
        for name in os.listdir(os.path.join(repo, "manifests")):
            if name not in BUILD:
                shutil.rmtree(os.path.join(repo, "manifests", name))
        build = toolgen(repo, "build", "-j", "2")
        check(build.returncode == 0, f"build: {build.stdout[-3000:]}{build.stderr[-2000:]}")
        for name in BUILD:
            check(f"{name}: " in build.stdout and "tests passed (100%)" in
                  next((line for line in build.stdout.splitlines() if line.startswith(f"{name}: ")), ""),
                  f"{name}: every test of the generated manifest passes")
        for intent, data, needles in REFUSED:
            g = generate(repo, "refused", intent, [data])
            check(g.returncode == 2, f"'{intent}' must be refused (exit {g.returncode}): {g.stdout}")
            for n in needles + ["Closest phrasings it supports", "llm.provider"]:
                check(n in g.stderr, f"'{intent}': the refusal says '{n}': {g.stderr}")
            check(not os.path.exists(os.path.join(repo, "manifests", "refused")), f"'{intent}': nothing written")
    finally:
        shutil.rmtree(repo, ignore_errors=True)
    print(f"builtin_gen: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
