"""calculator: arithmetic, statistics and unit conversions, from an expression.

The expression is parsed with Python's own parser (ast, mode "eval") and evaluated by walking
the tree: numbers, + - * / // % **, parentheses, lists of numbers, the constants and functions
of FUNCTIONS, and convert(value, "from", "to"). Any other node — a name, an attribute, a
subscript, a comprehension, a lambda, a string outside convert — is refused, so nothing the
expression says can reach Python itself (no eval, no exec). Sizes are bounded before the work
is done (exponents, factorials, list lengths), so a short expression cannot stall the call.
"""
import ast
import math
import re
import statistics

from toolgen_helpers import ToolError

MAX_EXPRESSION = 2000
MAX_LIST = 10000
MAX_BITS = 13000         # largest integer, in bits (about 3,900 digits), at every step
MAX_FACTORIAL = 1000
MAX_COMB = 10000


def bad(message):
    return ToolError("INVALID_INPUT", message)


# ---- units: factor to the base unit of their dimension (temperature is affine) ---------------

UNITS = {
    "length": {"m": 1, "km": 1000, "cm": 0.01, "mm": 0.001, "um": 1e-6, "nm": 1e-9,
               "mi": 1609.344, "yd": 0.9144, "ft": 0.3048, "in": 0.0254, "nmi": 1852},
    "mass": {"kg": 1, "g": 0.001, "mg": 1e-6, "t": 1000, "lb": 0.45359237, "oz": 0.028349523125,
             "st": 6.35029318},
    "time": {"s": 1, "ms": 0.001, "min": 60, "h": 3600, "day": 86400, "week": 604800,
             "year": 31557600},
    "volume": {"l": 1, "ml": 0.001, "m3": 1000, "gal": 3.785411784, "qt": 0.946352946,
               "pt": 0.473176473, "cup": 0.2365882365, "floz": 0.0295735295625},
    "area": {"m2": 1, "km2": 1e6, "cm2": 1e-4, "ha": 1e4, "acre": 4046.8564224,
             "ft2": 0.09290304, "mi2": 2589988.110336},
    "speed": {"m/s": 1, "km/h": 1 / 3.6, "mph": 0.44704, "knot": 1852 / 3600},
    "data": {"B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12, "KiB": 1024,
             "MiB": 1024 ** 2, "GiB": 1024 ** 3, "TiB": 1024 ** 4},
    "energy": {"J": 1, "kJ": 1e3, "cal": 4.184, "kcal": 4184, "Wh": 3600, "kWh": 3.6e6},
    "pressure": {"Pa": 1, "kPa": 1e3, "bar": 1e5, "atm": 101325, "psi": 6894.757293168},
}
TEMPERATURE = {"C", "F", "K"}
ALIASES = {"meter": "m", "meters": "m", "metre": "m", "metres": "m", "kilometer": "km",
           "kilometers": "km", "mile": "mi", "miles": "mi", "foot": "ft", "feet": "ft",
           "inch": "in", "inches": "in", "yard": "yd", "yards": "yd", "kilogram": "kg",
           "kilograms": "kg", "gram": "g", "grams": "g", "pound": "lb", "pounds": "lb",
           "lbs": "lb", "ounce": "oz", "ounces": "oz", "liter": "l", "liters": "l", "litre": "l",
           "litres": "l", "L": "l", "gallon": "gal", "gallons": "gal", "second": "s",
           "seconds": "s", "sec": "s", "minute": "min", "minutes": "min", "hour": "h",
           "hours": "h", "hr": "h", "days": "day", "weeks": "week", "years": "year",
           "kmh": "km/h", "kph": "km/h", "knots": "knot", "celsius": "C", "fahrenheit": "F",
           "kelvin": "K", "°C": "C", "°F": "F", "degC": "C", "degF": "F"}


def unit_of(name):
    u = ALIASES.get(name, ALIASES.get(name.lower(), name))
    if u in TEMPERATURE:
        return "temperature", u
    for dim, table in UNITS.items():
        if u in table:
            return dim, u
    known = sorted(TEMPERATURE | {k for t in UNITS.values() for k in t})
    raise bad(f"unknown unit '{name}'; known units: {', '.join(known)}")


def convert(value, src, dst):
    (d1, u1), (d2, u2) = unit_of(src), unit_of(dst)
    if d1 != d2:
        raise bad(f"cannot convert {src} ({d1}) to {dst} ({d2}): the units measure different things")
    if d1 == "temperature":
        kelvin = {"C": lambda v: v + 273.15, "F": lambda v: (v - 32) * 5 / 9 + 273.15,
                  "K": lambda v: v}[u1](value)
        return {"C": lambda k: k - 273.15, "F": lambda k: (k - 273.15) * 9 / 5 + 32,
                "K": lambda k: k}[u2](kelvin)
    return value * UNITS[d1][u1] / UNITS[d1][u2]


# ---- functions ---------------------------------------------------------------------------------

def numbers(xs, name):
    if not isinstance(xs, list):
        raise bad(f"{name}() takes a list of numbers, e.g. {name}([1, 2, 3])")
    if not xs:
        raise bad(f"{name}() of an empty list")
    return xs


def percentile(xs, p):
    xs = sorted(numbers(xs, "percentile"))
    if not 0 <= p <= 100:
        raise bad("percentile(list, p) needs p between 0 and 100")
    k = (len(xs) - 1) * p / 100          # linear interpolation, as numpy and pandas do
    lo = math.floor(k)
    hi = math.ceil(k)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def factorial(n):
    if not isinstance(n, int) or n < 0 or n > MAX_FACTORIAL:
        raise bad(f"factorial() takes a whole number from 0 to {MAX_FACTORIAL}")
    return math.factorial(n)


def stat(fn, name):
    return lambda xs: fn(numbers(xs, name))


def scalar_or_list(fn, name):
    def f(*args):
        if len(args) == 1 and isinstance(args[0], list):
            return fn(numbers(args[0], name))
        if not args:
            raise bad(f"{name}() needs numbers")
        return fn(args)
    return f


FUNCTIONS = {
    "abs": abs, "round": lambda x, n=0: round(x, int(n)), "floor": math.floor, "ceil": math.ceil,
    "trunc": math.trunc, "sqrt": math.sqrt, "cbrt": lambda x: math.copysign(abs(x) ** (1 / 3), x),
    "exp": math.exp, "ln": math.log, "log": lambda x, b=math.e: math.log(x, b),
    "log10": math.log10, "log2": math.log2, "sin": math.sin, "cos": math.cos, "tan": math.tan,
    "asin": math.asin, "acos": math.acos, "atan": math.atan, "atan2": math.atan2,
    "sinh": math.sinh, "cosh": math.cosh, "tanh": math.tanh, "degrees": math.degrees,
    "radians": math.radians, "hypot": math.hypot, "factorial": factorial, "gcd": math.gcd,
    "lcm": math.lcm, "comb": math.comb, "perm": math.perm,
    "min": scalar_or_list(min, "min"), "max": scalar_or_list(max, "max"),
    "sum": scalar_or_list(math.fsum, "sum"), "count": lambda xs: len(numbers(xs, "count")),
    "mean": stat(statistics.fmean, "mean"), "median": stat(statistics.median, "median"),
    "mode": stat(statistics.mode, "mode"), "stdev": stat(statistics.stdev, "stdev"),
    "pstdev": stat(statistics.pstdev, "pstdev"), "variance": stat(statistics.variance, "variance"),
    "pvariance": stat(statistics.pvariance, "pvariance"), "percentile": percentile,
    "convert": convert,
}
CONSTANTS = {"pi": math.pi, "e": math.e, "tau": math.tau}

BINARY = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
          ast.Mult: lambda a, b: a * b, ast.Div: lambda a, b: a / b,
          ast.FloorDiv: lambda a, b: a // b, ast.Mod: lambda a, b: a % b}


def power(a, b):
    if isinstance(a, int) and isinstance(b, int) and b > 0 and abs(a) > 1:
        if a.bit_length() * b > MAX_BITS:
            raise too_large()
    return a ** b


def too_large():
    return bad(f"the result is too large (more than about {MAX_BITS * 3 // 10} digits)")


def bounded(v):
    """Every integer step stays below MAX_BITS, so a chain of products cannot stall the call."""
    if isinstance(v, int) and v.bit_length() > MAX_BITS:
        raise too_large()
    return v


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


class Evaluator:
    """Walks the tree of one expression; every node kind it does not know is refused."""

    def __init__(self):
        self.unit = None

    def eval(self, node, strings_ok=False):
        if isinstance(node, ast.Expression):
            return self.eval(node.body)
        if isinstance(node, ast.Constant):
            if is_number(node.value):
                return node.value
            if isinstance(node.value, str) and strings_ok:
                return node.value
            raise bad(f"{node.value!r} is not a number; quote unit names only inside convert()")
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
            v = self.number(node.operand)
            return v if isinstance(node.op, ast.UAdd) else -v
        if isinstance(node, ast.BinOp) and (type(node.op) in BINARY or isinstance(node.op, ast.Pow)):
            a, b = self.number(node.left), self.number(node.right)
            if isinstance(node.op, ast.Pow):
                return bounded(power(a, b))
            return bounded(BINARY[type(node.op)](a, b))
        if isinstance(node, ast.List):
            if len(node.elts) > MAX_LIST:
                raise bad(f"a list holds at most {MAX_LIST} numbers")
            return [self.number(e) for e in node.elts]
        if isinstance(node, ast.Name):
            if node.id in CONSTANTS:
                return CONSTANTS[node.id]
            hint = " (call it: " + node.id + "(...))" if node.id in FUNCTIONS else ""
            raise bad(f"unknown name '{node.id}'{hint}; constants: {', '.join(CONSTANTS)}")
        if isinstance(node, ast.Call):
            return self.call(node)
        raise bad(f"'{type(node).__name__}' is not part of a calculation: use numbers, "
                  "+ - * / // % **, parentheses, lists and the listed functions")

    def number(self, node):
        v = self.eval(node)
        if isinstance(v, list):
            raise bad("a list can only be passed to a function such as mean([...])")
        return v

    def call(self, node):
        if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
            name = ast.unparse(node.func)
            name = name if len(name) <= 60 else name[:57] + "..."
            raise bad(f"'{name}' is not a function of the calculator; functions: "
                      f"{', '.join(sorted(FUNCTIONS))}")
        if node.keywords:
            raise bad(f"{node.func.id}() takes its arguments by position")
        name = node.func.id
        args = [self.eval(a, strings_ok=(name == "convert" and i > 0))
                for i, a in enumerate(node.args)]
        if name == "convert":
            if len(args) != 3 or not is_number(args[0]) or not all(isinstance(a, str) for a in args[1:]):
                raise bad('convert(value, "from", "to") takes a number and two unit names, '
                          'e.g. convert(10, "km", "mi")')
            self.unit = unit_of(args[2])[1]
        if name in ("comb", "perm") and any(is_number(a) and abs(a) > MAX_COMB for a in args):
            raise bad(f"{name}() takes numbers up to {MAX_COMB}")
        try:
            return bounded(FUNCTIONS[name](*args))
        except TypeError as e:
            raise bad(f"{name}(): {e}") from None


# "10 km to mi", "72 F in C": the natural form of a conversion
NATURAL = re.compile(r"^\s*(.+?)\s*([A-Za-z°][A-Za-z0-9/°]*)\s+(?:to|in|as)\s+"
                     r"([A-Za-z°][A-Za-z0-9/°]*)\s*$")


def parse(expression):
    m = NATURAL.match(expression)
    if m and not m.group(1).rstrip().endswith((",", "(")):
        value, src, dst = m.groups()
        expression = f"convert({value}, {src!r}, {dst!r})"
    try:
        return ast.parse(expression.strip(), mode="eval")
    except SyntaxError as e:
        raise bad(f"not an expression (syntax error at column {e.offset}): {e.msg}") from None
    except (RecursionError, MemoryError, ValueError):
        raise bad("the expression is nested too deeply or is not valid text") from None


def fmt(v, precision):
    if isinstance(v, int):
        return str(v)
    return format(v, f".{precision}g")


def run(expression: str, precision: int = 12) -> dict:
    if len(expression) > MAX_EXPRESSION:
        raise bad(f"the expression is longer than {MAX_EXPRESSION} characters")
    tree = parse(expression)
    ev = Evaluator()
    try:
        value = ev.number(tree)
    except ZeroDivisionError:
        raise bad("division by zero") from None
    except OverflowError:
        raise bad("the result is too large for a floating-point number") from None
    except (ValueError, statistics.StatisticsError) as e:
        raise bad(f"not defined: {e}") from None
    if isinstance(value, float) and not math.isfinite(value):
        raise bad("the result is not a finite number")
    if isinstance(value, int) and abs(value) >= 2 ** 53:
        # exact digits in the text; the number itself as the nearest float, when there is one
        text = str(value)
        if value.bit_length() >= 1024:
            raise bad(f"the result has {len(text)} digits: too large to return as a number")
        value = float(value)
    else:
        text = fmt(value, precision)
    if ev.unit:
        text = f"{text} {ev.unit}"
    return {
        "expression": expression,
        "value": value,
        "unit": ev.unit,
        "text": text,
        "summary_markdown": f"`{expression}` = **{text}**\n",
    }
