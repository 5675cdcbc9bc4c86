"""The requests of bench/intents, as analysts type them, each with its answer computed by pandas.

A case is C(dataset, request, answer, ...):
  answer   a function of the dataset (a pandas DataFrame) returning what a correct tool returns:
           a number; a Series (group keys -> value; ordered=True when the order is part of the
           answer, as in rankings); a DataFrame (keys -> several values); a list (values in
           order, e.g. the fares of the top 5 rows, the counts of histogram bins); or OUT for a
           request no data tool here can answer (refusing it is the right outcome)
  means    the columns, values or words the analyst meant where the request is ambiguous: when
           toolgen asks a question, the option among these is the answer given (--assume)
  chart    the request asks for a chart: the result must name a PNG

The requests were written before the generator was extended for them, in the voices analysts
use (questions, imperatives, terse notes, typos, synonyms), not from toolgen's grammar. The
datasets are tests/testdata/datasets/ (seaborn-data; see its README).
"""

import numpy as np
import pandas as pd

OUT = "out of scope"


class Rows:
    """The result is a table of n rows (scatter plots: the pairs; outliers: the rows found)."""

    def __init__(self, n):
        self.n = int(n)


class C:
    def __init__(self, dataset, request, answer, means=(), chart=False, ordered=False):
        self.dataset, self.request, self.answer = dataset, request, answer
        self.means, self.chart, self.ordered = list(means), chart, ordered


def g(df, by, col, agg):
    return df.groupby(by)[col].agg(agg)


def top(s, k=1, asc=False):
    return s.sort_values(ascending=asc, kind="mergesort").head(k)


def count(df, by):
    return df.groupby(by).size()


def iqr_outliers(s, k=1.5):
    q1, q3 = s.quantile(0.25), s.quantile(0.75)
    return int(((s < q1 - k * (q3 - q1)) | (s > q3 + k * (q3 - q1))).sum())


def period(df, col, p):
    return pd.to_datetime(df[col]).dt.to_period(p).astype(str)


CASES = [
    # ---- tips: total_bill, tip, sex, smoker, day, time, size ----------------------------------
    C("tips", "avg tip by sex and smoker", lambda d: g(d, ["sex", "smoker"], "tip", "mean")),
    C("tips", "maximum tip by time", lambda d: g(d, "time", "tip", "max")),
    C("tips", "bar chart of mean tip per day", lambda d: g(d, "day", "tip", "mean"), chart=True),
    C("tips", "total bill by day", lambda d: g(d, "day", "total_bill", "sum")),
    C("tips", "whats the average tip for lunch versus dinner", lambda d: g(d, "time", "tip", "mean")),
    C("tips", "tip percentage by day", lambda d: (d.tip / d.total_bill * 100).groupby(d.day).mean(),
      means=["total_bill", "mean"]),
    C("tips", "how many smokers vs non-smokers", lambda d: count(d, "smoker")),
    C("tips", "average party size on weekends", lambda d: d[d.day.isin(["Sat", "Sun"])]["size"].mean(), means=["size"]),
    C("tips", "median total bill for women", lambda d: d[d.sex == "Female"].total_bill.median()),
    C("tips", "average tip given by men at dinner", lambda d: d[(d.sex == "Male") & (d.time == "Dinner")].tip.mean()),
    C("tips", "count of tables by party size", lambda d: count(d, "size"), means=["size"]),
    C("tips", "std dev of tips", lambda d: d.tip.std()),
    C("tips", "show me the 5 largest bills", lambda d: d.total_bill.nlargest(5).tolist()),
    C("tips", "number of dinners on saturday", lambda d: int(((d.time == "Dinner") & (d.day == "Sat")).sum())),
    C("tips", "avergae tip per day", lambda d: g(d, "day", "tip", "mean")),
    C("tips", "correlation between bill and tip", lambda d: d.total_bill.corr(d.tip)),
    C("tips", "tip vs total bill scatter", lambda d: Rows(len(d.dropna(subset=["tip", "total_bill"]))), chart=True),
    C("tips", "how much do smokers tip on average compared to non smokers", lambda d: g(d, "smoker", "tip", "mean")),
    C("tips", "sum of tips for each day and time", lambda d: g(d, ["day", "time"], "tip", "sum")),
    C("tips", "which gender tips more on average", lambda d: top(g(d, "sex", "tip", "mean")), ordered=True),
    C("tips", "histogram of total bills", lambda d: np.histogram(d.total_bill, bins=10)[0].tolist(), chart=True),
    C("tips", "average total bill for parties of 4 or more", lambda d: d[d["size"] >= 4].total_bill.mean(), means=["size"]),
    C("tips", "lunch vs dinner: number of bills", lambda d: count(d, "time")),
    C("tips", "Mean tip on Thursdays", lambda d: d[d.day == "Thur"].tip.mean()),
    C("tips", "biggest tip ever left", lambda d: d.tip.max()),
    C("tips", "what day do people tip the most on average?", lambda d: top(g(d, "day", "tip", "mean")), ordered=True),
    C("tips", "total revenue per day", lambda d: g(d, "day", "total_bill", "sum"), means=["total_bill"]),
    C("tips", "tips: median by party size", lambda d: g(d, "size", "tip", "median"), means=["size"]),
    C("tips", "pie chart of days", lambda d: count(d, "day"), chart=True),
    C("tips", "predict the tip for a bill of 30 dollars", OUT),

    # ---- titanic: survived, pclass, sex, age, sibsp, parch, fare, embarked, class, who, ... ---
    C("titanic", "percentage who survived by sex", lambda d: d.groupby("sex").survived.mean() * 100),
    C("titanic", "survival rate by class", lambda d: g(d, "class", "survived", "mean")),
    C("titanic", "average ticket price by class", lambda d: g(d, "class", "fare", "mean"), means=["fare"]),
    C("titanic", "how many passengers were women", lambda d: int((d.sex == "female").sum()), means=["female", "sex"]),
    C("titanic", "age of the oldest passenger", lambda d: d.age.max()),
    C("titanic", "avg age of survivors vs non-survivors", lambda d: g(d, "survived", "age", "mean")),
    C("titanic", "how many children were on board", lambda d: int((d.who == "child").sum())),
    C("titanic", "fare distribution histogram", lambda d: np.histogram(d.fare, bins=10)[0].tolist(), chart=True),
    C("titanic", "median age by class and sex", lambda d: g(d, ["class", "sex"], "age", "median")),
    C("titanic", "number of passengers per embarkation port", lambda d: count(d, "embark_town"), means=["embark_town"]),
    C("titanic", "missing values in each column", lambda d: d.isna().sum()),
    C("titanic", "what share of passengers travelled alone", lambda d: d.alone.mean()),
    C("titanic", "survival rate for children", lambda d: d[d.who == "child"].survived.mean()),
    C("titanic", "top 10 most expensive tickets", lambda d: d.fare.nlargest(10).tolist()),
    C("titanic", "average fare paid by first class passengers", lambda d: d[d["class"] == "First"].fare.mean()),
    C("titanic", "count passengers by deck", lambda d: count(d, "deck")),
    C("titanic", "how many people survived", lambda d: int(d.survived.sum())),
    C("titanic", "correlation of age and fare", lambda d: d.age.corr(d.fare)),
    C("titanic", "passengers older than 60 - how many?", lambda d: int((d.age > 60).sum())),
    C("titanic", "average fare for passengers over 50", lambda d: d[d.age > 50].fare.mean(), means=["age"]),
    C("titanic", "survival by embark town", lambda d: g(d, "embark_town", "survived", "mean"), means=["mean"]),
    C("titanic", "pie chart of passenger class", lambda d: count(d, "class"), chart=True),
    C("titanic", "mean fare by port of embarkation and class", lambda d: g(d, ["embark_town", "class"], "fare", "mean"),
      means=["embark_town"]),
    C("titanic", "how many men died", lambda d: int(((d.who == "man") & (d.survived == 0)).sum()), means=["man", "male"]),
    C("titanic", "youngest passenger's age", lambda d: d.age.min()),
    C("titanic", "number of survivors per class", lambda d: g(d, "class", "survived", "sum")),
    C("titanic", "avg fare where age is missing", lambda d: d[d.age.isna()].fare.mean()),
    C("titanic", "Total fares collected by embark town", lambda d: g(d, "embark_town", "fare", "sum")),
    C("titanic", "what was the survival rate of women in third class", lambda d: d[(d.sex == "female") & (d["class"] == "Third")].survived.mean(),
      means=["female", "sex"]),
    C("titanic", "outliers in fare", lambda d: Rows(iqr_outliers(d.fare))),
    C("titanic", "distinct decks", lambda d: d.deck.nunique()),
    C("titanic", "train a model to predict survival", OUT),

    # ---- penguins: species, island, bill_length_mm, bill_depth_mm, flipper_length_mm, body_mass_g, sex
    C("penguins", "standard deviation of bill length by species", lambda d: g(d, "species", "bill_length_mm", "std")),
    C("penguins", "describe body mass by species", lambda d: d.groupby("species").body_mass_g.describe()[["mean", "std", "min", "max"]]),
    C("penguins", "which island has the most penguins", lambda d: top(count(d, "island")), ordered=True),
    C("penguins", "heaviest species on average", lambda d: top(g(d, "species", "body_mass_g", "mean")), ordered=True),
    C("penguins", "avg flipper length for males vs females", lambda d: g(d, "sex", "flipper_length_mm", "mean")),
    C("penguins", "how many penguins per island and species", lambda d: count(d, ["island", "species"])),
    C("penguins", "mean body weight of gentoo penguins", lambda d: d[d.species == "Gentoo"].body_mass_g.mean()),
    C("penguins", "bill length vs bill depth scatter plot", lambda d: Rows(len(d.dropna(subset=["bill_length_mm", "bill_depth_mm"]))), chart=True),
    C("penguins", "median flipper length", lambda d: d.flipper_length_mm.median()),
    C("penguins", "max body mass per sex", lambda d: g(d, "sex", "body_mass_g", "max")),
    C("penguins", "count of missing values per column", lambda d: d.isna().sum()),
    C("penguins", "distribution of species", lambda d: count(d, "species")),
    C("penguins", "correlation matrix", lambda d: d.select_dtypes("number").corr()),
    C("penguins", "average bill depth on Dream island", lambda d: d[d.island == "Dream"].bill_depth_mm.mean()),
    C("penguins", "how many penguins weigh more than 5000 g", lambda d: int((d.body_mass_g > 5000).sum())),
    C("penguins", "flipper length histogram, 20 bins", lambda d: np.histogram(d.flipper_length_mm.dropna(), bins=20)[0].tolist(), chart=True),
    C("penguins", "number of female penguins by island", lambda d: count(d[d.sex == "FEMALE"], "island")),
    C("penguins", "average body mass of adelie penguins on each island", lambda d: g(d[d.species == "Adelie"], "island", "body_mass_g", "mean")),
    C("penguins", "outliers in body mass using IQR", lambda d: Rows(iqr_outliers(d.body_mass_g))),
    C("penguins", "what's the mean bill length", lambda d: d.bill_length_mm.mean()),
    C("penguins", "lightest penguin", lambda d: d.body_mass_g.nsmallest(1).tolist()),
    C("penguins", "minimum and maximum flipper length per species", lambda d: d.groupby("species").flipper_length_mm.agg(["min", "max"])),
    C("penguins", "species count on Biscoe", lambda d: count(d[d.island == "Biscoe"], "species")),
    C("penguins", "mean of bill depth where sex is missing", lambda d: d[d.sex.isna()].bill_depth_mm.mean()),
    C("penguins", "body mass stats", lambda d: d.body_mass_g.describe()[["mean", "std", "min", "max"]].to_frame().T.set_axis(["body_mass_g"])),
    C("penguins", "cluster the penguins into 3 groups", OUT),

    # ---- iris: sepal_length, sepal_width, petal_length, petal_width, species -----------------
    C("iris", "how many flowers have petal width greater than 1.5", lambda d: int((d.petal_width > 1.5).sum())),
    C("iris", "mean sepal length per species", lambda d: g(d, "species", "sepal_length", "mean")),
    C("iris", "biggest petal length for each species", lambda d: g(d, "species", "petal_length", "max"), means=["max"]),
    C("iris", "average petal width of virginica", lambda d: d[d.species == "virginica"].petal_width.mean()),
    C("iris", "correlation between petal length and petal width", lambda d: d.petal_length.corr(d.petal_width)),
    C("iris", "summary stats for sepal width", lambda d: d.sepal_width.describe()[["mean", "std", "min", "max"]].to_frame().T.set_axis(["sepal_width"])),
    C("iris", "how many of each species", lambda d: count(d, "species")),
    C("iris", "histogram of petal length", lambda d: np.histogram(d.petal_length, bins=10)[0].tolist(), chart=True),
    C("iris", "median sepal width by species", lambda d: g(d, "species", "sepal_width", "median")),
    C("iris", "scatter of sepal length against petal length", lambda d: Rows(len(d)), chart=True),
    C("iris", "species with the longest petals on average", lambda d: top(g(d, "species", "petal_length", "mean")), ordered=True),
    C("iris", "count flowers with sepal length under 5", lambda d: int((d.sepal_length < 5).sum())),
    C("iris", "setosa petal length avg", lambda d: d[d.species == "setosa"].petal_length.mean()),
    C("iris", "min and max sepal width", lambda d: pd.DataFrame([{"min": d.sepal_width.min(), "max": d.sepal_width.max()}])),
    C("iris", "avg petal length for versicolor and virginica", lambda d: d[d.species.isin(["versicolor", "virginica"])].petal_length.mean()),
    C("iris", "petal width by species, mean", lambda d: g(d, "species", "petal_width", "mean")),
    C("iris", "Whats the largest sepal length among setosas?", lambda d: d[d.species == "setosa"].sepal_length.max()),
    C("iris", "total petal length per species", lambda d: g(d, "species", "petal_length", "sum")),
    C("iris", "box plot of sepal length by species", OUT),
    C("iris", "number of distinct species", lambda d: d.species.nunique()),

    # ---- mpg: mpg, cylinders, displacement, horsepower, weight, acceleration, model_year, origin, name
    C("mpg", "average mpg for 4-cylinder cars", lambda d: d[d.cylinders == 4].mpg.mean()),
    C("mpg", "mean horsepower by origin", lambda d: g(d, "origin", "horsepower", "mean")),
    C("mpg", "how many cars from japan", lambda d: int((d.origin == "japan").sum())),
    C("mpg", "heaviest car", lambda d: d.weight.nlargest(1).tolist()),
    C("mpg", "avg weight per number of cylinders", lambda d: g(d, "cylinders", "weight", "mean")),
    C("mpg", "fuel efficiency by model year", lambda d: g(d, "model_year", "mpg", "mean"), means=["mean", "mpg"]),
    C("mpg", "top 5 most fuel efficient cars", lambda d: d.mpg.nlargest(5).tolist()),
    C("mpg", "correlation between weight and mpg", lambda d: d.weight.corr(d.mpg)),
    C("mpg", "how many cars have more than 200 horsepower", lambda d: int((d.horsepower > 200).sum())),
    C("mpg", "median acceleration by origin and cylinders", lambda d: g(d, ["origin", "cylinders"], "acceleration", "median")),
    C("mpg", "which origin has the best mpg", lambda d: top(g(d, "origin", "mpg", "mean")), ordered=True, means=["mean"]),
    C("mpg", "line chart of the number of cars per model year", lambda d: count(d, "model_year"), chart=True),
    C("mpg", "scatter horsepower vs weight", lambda d: Rows(len(d.dropna(subset=["horsepower", "weight"]))), chart=True),
    C("mpg", "how many cars are missing horsepower", lambda d: int(d.horsepower.isna().sum())),
    C("mpg", "avg mpg of european cars", lambda d: d[d.origin == "europe"].mpg.mean()),
    C("mpg", "distribution of cylinders", lambda d: count(d, "cylinders")),
    C("mpg", "summary of acceleration", lambda d: d.acceleration.describe()[["mean", "std", "min", "max"]].to_frame().T.set_axis(["acceleration"])),
    C("mpg", "max mpg for each origin, sorted descending", lambda d: top(g(d, "origin", "mpg", "max"), 3), ordered=True),
    C("mpg", "mean mpg by origin where weight is under 3000", lambda d: g(d[d.weight < 3000], "origin", "mpg", "mean")),
    C("mpg", "average displacement of 8 cylinder engines", lambda d: d[d.cylinders == 8].displacement.mean()),
    C("mpg", "mpg histogram", lambda d: np.histogram(d.mpg, bins=10)[0].tolist(), chart=True),
    C("mpg", "least powerful car's horsepower", lambda d: d.horsepower.min()),
    C("mpg", "number of models per origin", lambda d: count(d, "origin")),
    C("mpg", "cars per origin and cylinder count", lambda d: count(d, ["origin", "cylinders"])),
    C("mpg", "avg acceleration for cars with 6 or more cylinders", lambda d: d[d.cylinders >= 6].acceleration.mean()),
    C("mpg", "which 3 cylinder counts have the highest mean mpg", lambda d: top(g(d, "cylinders", "mpg", "mean"), 3), ordered=True),
    C("mpg", "predict mpg from weight with a linear regression", OUT),

    # ---- flights: year, month, passengers ----------------------------------------------------
    C("flights", "which month had the highest average passenger count across all years",
      lambda d: top(g(d, "month", "passengers", "mean")), ordered=True),
    C("flights", "total passengers per year", lambda d: g(d, "year", "passengers", "sum")),
    C("flights", "average monthly passengers in 1960", lambda d: d[d.year == 1960].passengers.mean(), means=["none"]),
    C("flights", "line chart of total passengers by year", lambda d: g(d, "year", "passengers", "sum"), chart=True),
    C("flights", "month with the most passengers in 1955", lambda d: top(g(d[d.year == 1955], "month", "passengers", "sum")), ordered=True, means=["sum"]),
    C("flights", "how many passengers flew in total", lambda d: int(d.passengers.sum())),
    C("flights", "year over year growth in passengers", OUT),
    C("flights", "avg passengers per month", lambda d: g(d, "month", "passengers", "mean")),
    C("flights", "pivot table of passengers by year and month", lambda d: d.pivot_table(index="year", columns="month", values="passengers", aggfunc="mean")),
    C("flights", "max passengers in a single month", lambda d: d.passengers.max(), means=["rows"]),
    C("flights", "mean passengers in june, july and august", lambda d: d[d.month.isin(["June", "July", "August"])].passengers.mean()),
    C("flights", "Passengers in December, by year", lambda d: g(d[d.month == "December"], "year", "passengers", "sum"), means=["sum"]),
    C("flights", "median passengers per year", lambda d: g(d, "year", "passengers", "median")),
    C("flights", "What year had the fewest passengers?", lambda d: top(g(d, "year", "passengers", "sum"), asc=True), ordered=True,
      means=["sum"]),
    C("flights", "average number of passengers before 1955", lambda d: d[d.year < 1955].passengers.mean()),
    C("flights", "bar chart of total passengers per month", lambda d: g(d, "month", "passengers", "sum"), chart=True),
    C("flights", "std of monthly passengers", lambda d: d.passengers.std(), means=["none"]),
    C("flights", "passenger counts over 400: how many months", lambda d: int((d.passengers > 400).sum()), means=["rows"]),

    # ---- healthexp: Year, Country, Spending_USD, Life_Expectancy --------------------------------
    C("healthexp", "life expectancy in 2015 by country", lambda d: g(d[d.Year == 2015], "Country", "Life_Expectancy", "mean"), means=["mean"]),
    C("healthexp", "average spending per country", lambda d: g(d, "Country", "Spending_USD", "mean")),
    C("healthexp", "which country spends the most on health on average", lambda d: top(g(d, "Country", "Spending_USD", "mean")), ordered=True),
    C("healthexp", "max life expectancy for Japan", lambda d: d[d.Country == "Japan"].Life_Expectancy.max()),
    C("healthexp", "countries ranked by average life expectancy", lambda d: top(g(d, "Country", "Life_Expectancy", "mean"), 6), ordered=True),
    C("healthexp", "correlation between spending and life expectancy", lambda d: d.Spending_USD.corr(d.Life_Expectancy)),
    C("healthexp", "average life expectancy since 2000", lambda d: d[d.Year >= 2000].Life_Expectancy.mean()),
    C("healthexp", "number of records per country", lambda d: count(d, "Country")),
    C("healthexp", "median spending in Canada", lambda d: d[d.Country == "Canada"].Spending_USD.median()),
    C("healthexp", "highest spending ever recorded", lambda d: d.Spending_USD.max()),
    C("healthexp", "average life expectancy of germany and france by year", lambda d: g(d[d.Country.isin(["Germany", "France"])], "Year", "Life_Expectancy", "mean")),
    C("healthexp", "USA spending over the years, line chart", lambda d: d[d.Country == "USA"].sort_values("Year").Spending_USD.tolist(), chart=True),
    C("healthexp", "mean health spending per year", lambda d: g(d, "Year", "Spending_USD", "mean"), means=["Spending_USD"]),
    C("healthexp", "lowest life expectancy by country", lambda d: g(d, "Country", "Life_Expectancy", "min"), means=["min"]),
    C("healthexp", "total spending of Great Britain", lambda d: d[d.Country == "Great Britain"].Spending_USD.sum()),
    C("healthexp", "which 2 countries have the lowest average spending", lambda d: top(g(d, "Country", "Spending_USD", "mean"), 2, asc=True), ordered=True),
    C("healthexp", "scatter life expectancy against spending", lambda d: Rows(len(d)), chart=True),
    C("healthexp", "life expectancy summary statistics", lambda d: d.Life_Expectancy.describe()[["mean", "std", "min", "max"]].to_frame().T.set_axis(["Life_Expectancy"])),
    C("healthexp", "avg spend per country after 2010", lambda d: g(d[d.Year > 2010], "Country", "Spending_USD", "mean")),
    C("healthexp", "forecast life expectancy for 2030", OUT),

    # ---- car_crashes: total, speeding, alcohol, not_distracted, no_previous, ins_premium, ins_losses, abbrev
    C("car_crashes", "average insurance premium", lambda d: d.ins_premium.mean()),
    C("car_crashes", "which state has the highest insurance losses", lambda d: d.ins_losses.nlargest(1).tolist()),
    C("car_crashes", "correlation between speeding and alcohol", lambda d: d.speeding.corr(d.alcohol)),
    C("car_crashes", "how many states have a total above 20", lambda d: int((d.total > 20).sum())),
    C("car_crashes", "top 5 states by premium", lambda d: d.ins_premium.nlargest(5).tolist()),
    C("car_crashes", "median alcohol", lambda d: d.alcohol.median()),
    C("car_crashes", "scatter plot of premiums vs losses", lambda d: Rows(len(d)), chart=True),
    C("car_crashes", "mean total for states where speeding is above 5", lambda d: d[d.speeding > 5].total.mean()),
    C("car_crashes", "summary statistics of total and speeding", lambda d: d[["total", "speeding"]].describe().T[["mean", "std", "min", "max"]]),
    C("car_crashes", "correlation matrix of all columns", lambda d: d.select_dtypes("number").corr()),
    C("car_crashes", "histogram of insurance losses", lambda d: np.histogram(d.ins_losses, bins=10)[0].tolist(), chart=True),
    C("car_crashes", "lowest premium", lambda d: d.ins_premium.min()),
    C("car_crashes", "total crashes in TX", lambda d: d[d.abbrev == "TX"].total.sum(), means=["total"]),
    C("car_crashes", "average not distracted", lambda d: d.not_distracted.mean()),
    C("car_crashes", "states with the 3 lowest totals", lambda d: d.total.nsmallest(3).tolist()),
    C("car_crashes", "outliers in ins_losses by z-score", lambda d: Rows(((d.ins_losses - d.ins_losses.mean()).abs() > 3 * d.ins_losses.std()).sum())),
    C("car_crashes", "map the crashes by state", OUT),

    # ---- dowjones: Date, Price ---------------------------------------------------------------
    C("dowjones", "yearly average price", lambda d: d.Price.groupby(period(d, "Date", "Y")).mean()),
    C("dowjones", "12 month moving average of the price", lambda d: d.Price.rolling(12).mean().tolist()),
    C("dowjones", "line chart of price over time", lambda d: d.Price.tolist(), chart=True),
    C("dowjones", "average price in 1929", lambda d: d[pd.to_datetime(d.Date).dt.year == 1929].Price.mean()),
    C("dowjones", "highest price ever", lambda d: d.Price.max()),
    C("dowjones", "average price per year as a bar chart", lambda d: d.Price.groupby(period(d, "Date", "Y")).mean(), chart=True),
    C("dowjones", "quarterly max price", lambda d: d.Price.groupby(period(d, "Date", "Q")).max()),
    C("dowjones", "lowest closing price", lambda d: d.Price.min(), means=["Price"]),
    C("dowjones", "max price per decade", OUT),
    C("dowjones", "median price", lambda d: d.Price.median()),
    C("dowjones", "Price volatility (std dev) by year", lambda d: d.Price.groupby(period(d, "Date", "Y")).std()),
    C("dowjones", "mean price since 1950", lambda d: d[pd.to_datetime(d.Date).dt.year >= 1950].Price.mean()),
    C("dowjones", "how many months closed above 500", lambda d: int((d.Price > 500).sum())),
    C("dowjones", "3-month rolling average of price", lambda d: d.Price.rolling(3).mean().tolist()),

    # ---- taxis: pickup, dropoff, passengers, distance, fare, tip, tolls, total, color, payment, zones, boroughs
    C("taxis", "daily ride count", lambda d: count(d, period(d, "pickup", "D")), means=["pickup"]),
    C("taxis", "which 3 dropoff zones have the highest average fare", lambda d: top(g(d, "dropoff_zone", "fare", "mean"), 3), ordered=True),
    C("taxis", "average fare by payment type", lambda d: g(d, "payment", "fare", "mean")),
    C("taxis", "avg tip for credit card vs cash", lambda d: g(d, "payment", "tip", "mean")),
    C("taxis", "total tolls collected", lambda d: d.tolls.sum()),
    C("taxis", "how many rides by borough", lambda d: count(d, "pickup_borough"), means=["pickup_borough"]),
    C("taxis", "average distance of green cabs", lambda d: d[d.color == "green"].distance.mean()),
    C("taxis", "tip as a percentage of fare, average by payment", lambda d: (d.tip / d.fare * 100).groupby(d.payment).mean()),
    C("taxis", "busiest pickup zone", lambda d: top(count(d, "pickup_zone")), ordered=True, means=["count"]),
    C("taxis", "mean passengers per ride", lambda d: d.passengers.mean()),
    C("taxis", "longest trip distance", lambda d: d.distance.max()),
    C("taxis", "rides with more than 4 passengers", lambda d: int((d.passengers > 4).sum()), means=["count"]),
    C("taxis", "average total amount by pickup borough", lambda d: g(d, "pickup_borough", "total", "mean")),
    C("taxis", "fare vs distance scatter", lambda d: Rows(len(d)), chart=True),
    C("taxis", "median fare for trips over 10 miles", lambda d: d[d.distance > 10].fare.median(), means=["distance"]),
    C("taxis", "number of yellow vs green rides", lambda d: count(d, "color")),
    C("taxis", "average tip by dropoff borough, top 5", lambda d: top(g(d, "dropoff_borough", "tip", "mean"), 5), ordered=True),
    C("taxis", "total fare per pickup borough as a bar chart", lambda d: g(d, "pickup_borough", "fare", "sum"), chart=True),
    C("taxis", "how many trips were paid in cash", lambda d: int((d.payment == "cash").sum())),
    C("taxis", "avg fare in manhattan", lambda d: d[d.pickup_borough == "Manhattan"].fare.mean(), means=["pickup_borough"]),
    C("taxis", "correlation between distance and fare", lambda d: d.distance.corr(d.fare)),
    C("taxis", "monthly total fares", lambda d: d.fare.groupby(period(d, "pickup", "M")).sum(), means=["pickup"]),
    C("taxis", "max tip per color", lambda d: g(d, "color", "tip", "max")),
    C("taxis", "mean distance where tolls are above 0", lambda d: d[d.tolls > 0].distance.mean()),
    C("taxis", "count of rides per passenger count", lambda d: count(d, "passengers")),
    C("taxis", "average fare per mile", lambda d: (d.fare / d.distance).replace([np.inf, -np.inf], np.nan).mean()),
    C("taxis", "rides with missing payment type", lambda d: int(d.payment.isna().sum())),
    C("taxis", "top 10 fares", lambda d: d.fare.nlargest(10).tolist()),
    C("taxis", "distribution of payment methods", lambda d: count(d, "payment")),
    C("taxis", "average trip distance by pickup borough and color", lambda d: g(d, ["pickup_borough", "color"], "distance", "mean")),
]
