"""Requests that toolgen once answered wrong, end to end (run by tests/cli/reading_gen.sh).

Each request goes to `toolgen new` with the built-in generator in a scratch repository holding
the reusable example tools (bench/intents/run.py's, whose machinery this test uses): the tool it
generates or reuses is run on the file and its result compared with pandas
(bench/intents/answers.py). A request must come out as expected here — solved, or asked about
and then solved — and never wrong; reuse must name the tool that covers the request's reading.

Prints "reading_gen: N passed, M failed".
"""

import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench", "intents"))

import run as bench  # noqa: E402
from cases import C, count, g, top  # noqa: E402

TOOLGEN = os.environ.get("TOOLGEN_ABS") or os.path.join(ROOT, os.environ.get("TOOLGEN", "bin/toolgen"))

passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print(f"FAIL {what}", file=sys.stderr)


SOLVED = ("solved", "asked")
NOT_WRONG = ("solved", "asked", "refused")

# (case, the outcomes allowed, a text the details must hold: the tool used)
CASES = [
    # reuse used to drop the aggregate, the measure, the filter or the period
    (C("tips", "avg tip by sex and smoker", lambda d: g(d, ["sex", "smoker"], "tip", "mean")), SOLVED, "mean_tip_by_sex_smoker"),
    (C("tips", "maximum tip by time", lambda d: g(d, "time", "tip", "max")), SOLVED, "max_tip_by_time"),
    (C("penguins", "standard deviation of bill length by species",
       lambda d: g(d, "species", "bill_length_mm", "std")), SOLVED, "std_bill_length_mm_by_species"),
    (C("penguins", "describe body mass by species",
       lambda d: d.groupby("species").body_mass_g.describe()[["mean", "std", "min", "max"]]), NOT_WRONG, ""),
    (C("iris", "how many flowers have petal width greater than 1.5",
       lambda d: int((d.petal_width > 1.5).sum())), SOLVED, "count_rows_where_petal_width"),
    (C("taxis", "daily ride count", lambda d: count(d, bench.pd.to_datetime(d.pickup).dt.to_period("D").astype(str)),
       means=["pickup"]), SOLVED, ""),
    (C("tips", "bar chart of mean tip per day", lambda d: g(d, "day", "tip", "mean"), chart=True),
     SOLVED, 'bar_chart_by_group {"file_path":"data/tips.csv","aggregate":"mean","value_column":"tip"'),
    (C("titanic", "percentage who survived by sex", lambda d: d.groupby("sex").survived.mean() * 100),
     NOT_WRONG, ""),
    # a misreading: grouped by year and month, and counted the passengers
    (C("flights", "which month had the highest average passenger count across all years",
       lambda d: top(g(d, "month", "passengers", "mean")), ordered=True), SOLVED, ""),
    # the same reading on other columns reuses the tool made above, with the columns as arguments
    (C("tips", "average total bill by time and day", lambda d: g(d, ["time", "day"], "total_bill", "mean")),
     SOLVED, '"value_columns":["total_bill"],"group_by":["time","day"]'),
    # grammar words whose clause is not understood are not dropped
    (C("tips", "average tip per week", lambda d: d.tip.mean()), ("refused",), "'per week' is not understood"),
    (C("tips", "average tip by category", lambda d: d.tip.mean()), ("refused",), "'by category' is not understood"),
    # counting a yes/no column counts its yes rows; counting a text column counts rows per value
    (C("titanic", "how many people survived", lambda d: int(d.survived.sum())), SOLVED, ""),
    (C("penguins", "species count on Biscoe", lambda d: count(d[d.island == "Biscoe"], "species")), SOLVED, ""),
    # everyday wording: synonyms, values as filters, numbers attached to words, superlatives,
    # rates, ratios, groupings without "by", aggregate words in column names, typos — solved,
    # or asked about (the analyst's meaning is the answer given) and then solved
    (C("titanic", "average ticket price by class", lambda d: g(d, "class", "fare", "mean"),
       means=["fare"]), SOLVED, ""),
    (C("penguins", "average weight by species", lambda d: g(d, "species", "body_mass_g", "mean")),
     SOLVED, ""),
    (C("titanic", "how many women survived", lambda d: int(((d.sex == "female") & (d.survived == 1)).sum()),
       means=["sex"]), SOLVED, ""),
    (C("tips", "average tip for lunch versus dinner", lambda d: g(d, "time", "tip", "mean")), SOLVED, ""),
    (C("mpg", "average mpg of 4-cylinder cars", lambda d: d[d.cylinders == 4].mpg.mean()), SOLVED, ""),
    (C("healthexp", "average life expectancy in 2015", lambda d: d[d.Year == 2015].Life_Expectancy.mean()),
     SOLVED, ""),
    (C("penguins", "heaviest species", lambda d: top(g(d, "species", "body_mass_g", "mean")), ordered=True,
       means=["mean"]), SOLVED, ""),
    (C("taxis", "most expensive pickup zone", lambda d: top(g(d, "pickup_zone", "fare", "mean")), ordered=True,
       means=["mean"]), SOLVED, ""),
    (C("penguins", "which island has the most penguins", lambda d: top(d.groupby("island").size()),
       ordered=True), SOLVED, ""),
    (C("titanic", "survival rate", lambda d: d.survived.mean()), SOLVED, ""),
    (C("tips", "average tip percentage", lambda d: (d.tip / d.total_bill * 100).mean(),
       means=["total_bill"]), SOLVED, ""),
    (C("taxis", "which 3 dropoff zones have the highest average fare",
       lambda d: top(g(d, "dropoff_zone", "fare", "mean"), 3), ordered=True), SOLVED, ""),
    (C("tips", "total bill by day", lambda d: g(d, "day", "total_bill", "sum")), SOLVED, ""),
    (C("tips", "avergae tip by day", lambda d: g(d, "day", "tip", "mean")), SOLVED, ""),
    (C("tips", "tip by day", lambda d: g(d, "day", "tip", "median"), means=["median"]), ("asked",), ""),
    # misreadings that were wrong answers: now answered right, or refused by name
    (C("taxis", "average fare by pickup zone, most expensive first",
       lambda d: g(d, "pickup_zone", "fare", "mean").sort_values(ascending=False, kind="mergesort"),
       ordered=True), SOLVED, ""),
    (C("taxis", "average passengers by month across all years", lambda d: d.passengers.mean(),
       means=["pickup"]), ("refused",), "pooled across all years"),
    (C("iris", "biggest petal length for each species", lambda d: g(d, "species", "petal_length", "max")),
     SOLVED, ""),
    # a share asked of the rows that meet a filter, not of a column's values among them (was
    # every bill amount's share at lunch, and embarked == S among Southampton's passengers)
    (C("tips", "what share of bills were paid at lunch",
       lambda d: d.time.value_counts(normalize=True)), SOLVED, ""),
    (C("titanic", "percentage of passengers who embarked at Southampton",
       lambda d: d.embark_town.value_counts(normalize=True)), SOLVED, ""),
    # a number compared with a yes/no column (was survived < 10): of which column, asked
    (C("titanic", "how many passengers under 10 survived",
       lambda d: int(((d.age < 10) & (d.survived == 1)).sum()), means=["age"]), ("asked",), ""),
    (C("titanic", "number of survivors under 10",
       lambda d: int(((d.age < 10) & (d.survived == 1)).sum()), means=["age"]), ("asked",), ""),
    # "ROWS with COL": the rows that have one, not COL as a second measure over every row
    (C("taxis", "mean tip for rides with tolls", lambda d: d[d.tolls > 0].tip.mean()), SOLVED, ""),
    (C("taxis", "number of rides with tolls", lambda d: int((d.tolls > 0).sum())), SOLVED, ""),
    (C("titanic", "average fare of passengers with an age", lambda d: d[d.age.notna()].fare.mean()),
     SOLVED, ""),
    # a list of values whose first word is also a ranking word (was class == 'Second' alone)
    (C("titanic", "average age of first and second class passengers",
       lambda d: d[d["class"].isin(["First", "Second"])].age.mean()), SOLVED, ""),
    # a column reported for the group another ranks (was ranked by the reported column)
    (C("penguins", "average bill length of the heaviest species",
       lambda d: g(d, "species", "bill_length_mm", "mean").loc[
           [d.groupby("species").body_mass_g.mean().idxmax()]]), SOLVED, ""),
    # "over the years": the years are the x axis
    (C("healthexp", "USA spending over the years, line chart",
       lambda d: d[d.Country == "USA"].sort_values("Year").Spending_USD.tolist(), chart=True), SOLVED, ""),
]


def main():
    work = tempfile.mkdtemp(prefix="tg-reading-gen-")
    try:
        bench.make_repo(work)
        for case, allowed, needle in CASES:
            outcome, details, reading = bench.attempt(TOOLGEN, work, case)
            check(outcome in allowed, f"'{case.request}' ({case.dataset}): {outcome}, want one of "
                                      f"{allowed}: reading '{reading}': {details}")
            check(outcome != "wrong", f"'{case.request}': never wrong: {details}")
            check(needle in details, f"'{case.request}': '{needle}' in '{details}'")
            check(reading or outcome == "refused", f"'{case.request}': the reading is shown")
    finally:
        bench.shutil.rmtree(work, ignore_errors=True)
    print(f"reading_gen: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
