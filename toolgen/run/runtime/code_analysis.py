#!/usr/bin/python3
"""Structural parts of CodeBLEU: AST match and dataflow match (docs/metrics.md#codebleu).

Reads {"candidate": "<python code>", "reference": "<python code>"} on stdin and prints one JSON
object on stdout:

    {"ok": true,
     "ast": {"ast_match_score", "ast_node_overlap", "ast_depth_similarity",
             "ast_node_sequence_similarity", "candidate": {...}, "reference": {...}},
     "dataflow": {"dataflow_match_score", "variable_flow_similarity",
                  "dependency_graph_similarity", "assignment_order_similarity",
                  "candidate": {...}, "reference": {...}}}

A syntax error in either program is a result, not a failure: "ok" is false, "error" says which
program and where (1-based line and column), every score is 0, and the exit status is 0. A
request that is not such a JSON object exits with status 2. The token parts of CodeBLEU and the
combination are computed by toolgen itself (toolgen/metrics.c); docs/metrics.md has the formulas.

Standard library only: this runs inside the sandbox with the system Python.
"""

import ast
import builtins
import difflib
import json
import sys
import textwrap
from collections import Counter

BUILTIN_NAMES = frozenset(dir(builtins))
RETURN = "<return>"  # pseudo-variable: what a function returns depends on these names


def parse(code):
    # Snippets are often indented as a whole (cut out of a function or a test string).
    return ast.parse(textwrap.dedent(code))


def sequence_similarity(a, b):
    if not a and not b:
        return 1.0
    # autojunk would silently ignore frequent node types (Name, Load) in long sequences.
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()


def multiset_jaccard(a, b):
    """|A ∩ B| / |A ∪ B| over multisets (Counter); two empty multisets are identical."""
    union = sum((a | b).values())
    return sum((a & b).values()) / union if union else 1.0


# ------------------------------------------------------------------------------------------------
# AST match (4.7.3)

def ast_features(tree):
    types, depth = [], 0
    stack = [(tree, 0)]
    while stack:  # iterative: deeply nested expressions must not hit the recursion limit
        node, d = stack.pop()
        types.append(type(node).__name__)
        depth = max(depth, d)
        stack.extend((child, d + 1) for child in reversed(list(ast.iter_child_nodes(node))))
    return {"node_types": types, "max_depth": depth}


def weighted(score_key, parts):
    """{score_key: the weighted sum, then each part by name}; parts are (name, weight, value)."""
    result = {score_key: sum(weight * value for _, weight, value in parts)}
    result.update((name, value) for name, _, value in parts)
    return result


def ast_match(cand, ref):
    c_types, r_types = Counter(cand["node_types"]), Counter(ref["node_types"])
    deepest = max(cand["max_depth"], ref["max_depth"])
    return weighted("ast_match_score", [
        ("ast_node_overlap", 0.4, multiset_jaccard(c_types, r_types)),
        ("ast_depth_similarity", 0.3,
         1.0 - abs(cand["max_depth"] - ref["max_depth"]) / deepest if deepest else 1.0),
        ("ast_node_sequence_similarity", 0.3,
         sequence_similarity(cand["node_types"], ref["node_types"])),
    ])


def ast_summary(features):
    return {
        "node_count": len(features["node_types"]),
        "max_depth": features["max_depth"],
        "node_types": dict(sorted(Counter(features["node_types"]).items())),
    }


# ------------------------------------------------------------------------------------------------
# Dataflow match (4.7.4)

def names_in(node):
    """Names read by an expression, in source order, each once."""
    if node is None:
        return []
    found = [n for n in ast.walk(node) if isinstance(n, ast.Name)]
    found.sort(key=lambda n: (n.lineno, n.col_offset))
    return list(dict.fromkeys(n.id for n in found))


def target_names(target):
    """Variables an assignment target binds or modifies: `a, b = ...` both; `df["x"] = ...` df."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [name for elt in target.elts for name in target_names(elt)]
    if isinstance(target, ast.Starred):
        return target_names(target.value)
    if isinstance(target, (ast.Attribute, ast.Subscript)):
        base = target.value
        while isinstance(base, (ast.Attribute, ast.Subscript)):
            base = base.value
        return [base.id] if isinstance(base, ast.Name) else []
    return []


def target_reads(target):
    """Names a store target reads: the index of df[col] = ... reads col (and df is modified)."""
    if isinstance(target, ast.Subscript):
        return names_in(target.slice) + target_reads(target.value)
    if isinstance(target, ast.Attribute):
        return target_reads(target.value)
    return []


class Dataflow(ast.NodeVisitor):
    """Variable → the variables its value is computed from, for every binding in the code."""

    def __init__(self):
        self.deps = {}          # var -> set of names (union over all its assignments)
        self.assignments = []   # (var, line) in source order
        self.edges = []         # (var, dependency) in source order, one per assignment
        self.events = []        # ("def" | "use", name) in source order: how variables flow

    def bind(self, targets, value_names, line):
        for var in targets:
            self.deps.setdefault(var, set()).update(value_names)
            self.assignments.append((var, line))
            self.edges.extend((var, dep) for dep in value_names)
            self.events.extend(("use", dep) for dep in value_names)
            self.events.append(("def", var))

    def visit_Assign(self, node):
        reads = names_in(node.value)
        for target in node.targets:
            extra = [n for n in target_reads(target) if n not in reads]
            modifies = [] if isinstance(target, (ast.Name, ast.Tuple, ast.List, ast.Starred)) \
                else target_names(target)  # df["x"] = v: the new df also depends on the old one
            self.bind(target_names(target), reads + extra + modifies, node.lineno)
        self.generic_visit(node)

    def visit_AugAssign(self, node):
        names = target_names(node.target)
        self.bind(names, list(dict.fromkeys(names + names_in(node.value))), node.lineno)
        self.generic_visit(node)

    def visit_AnnAssign(self, node):
        if node.value is not None:
            self.bind(target_names(node.target), names_in(node.value), node.lineno)
        self.generic_visit(node)

    def visit_NamedExpr(self, node):
        self.bind(target_names(node.target), names_in(node.value), node.lineno)
        self.generic_visit(node)

    def visit_For(self, node):
        self.bind(target_names(node.target), names_in(node.iter), node.lineno)
        self.generic_visit(node)

    visit_AsyncFor = visit_For

    def visit_comprehension(self, node):
        self.bind(target_names(node.target), names_in(node.iter), node.iter.lineno)
        self.generic_visit(node)

    def visit_With(self, node):
        for item in node.items:
            if item.optional_vars is not None:
                self.bind(target_names(item.optional_vars), names_in(item.context_expr),
                          node.lineno)
        self.generic_visit(node)

    visit_AsyncWith = visit_With

    def visit_FunctionDef(self, node):
        a = node.args
        params = a.posonlyargs + a.args + a.kwonlyargs + [p for p in (a.vararg, a.kwarg) if p]
        for p in params:
            self.bind([p.arg], [], node.lineno)
        self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Return(self, node):
        if node.value is not None:
            self.bind([RETURN], names_in(node.value), node.lineno)
        self.generic_visit(node)


def normaliser(flow):
    """Renames variables to var_0, var_1, ... in order of first appearance, so that the same
    flow with other names matches; builtins and <return> keep their names."""
    mapping = {}

    def norm(name):
        if name == RETURN or name in BUILTIN_NAMES:
            return name
        if name not in mapping:
            mapping[name] = f"var_{len(mapping)}"
        return mapping[name]

    for _, name in flow.events:
        norm(name)
    return norm


def extract_dataflow(tree):
    flow = Dataflow()
    flow.visit(tree)
    norm = normaliser(flow)
    return {
        "variable_dependencies": {var: sorted(deps) for var, deps in flow.deps.items()},
        "assignments": [[var, line] for var, line in flow.assignments],
        "edges": [[norm(var), norm(dep)] for var, dep in flow.edges],
        "flow": [f"{kind}:{norm(name)}" for kind, name in flow.events],
        "assignment_order": [norm(var) for var, _ in flow.assignments],
    }


def dataflow_match(cand, ref):
    return weighted("dataflow_match_score", [
        ("variable_flow_similarity", 0.4, sequence_similarity(cand["flow"], ref["flow"])),
        ("dependency_graph_similarity", 0.4,
         multiset_jaccard(Counter(map(tuple, cand["edges"])), Counter(map(tuple, ref["edges"])))),
        ("assignment_order_similarity", 0.2,
         sequence_similarity(cand["assignment_order"], ref["assignment_order"])),
    ])


# ------------------------------------------------------------------------------------------------

ZERO_AST = {"ast_match_score": 0.0, "ast_node_overlap": 0.0, "ast_depth_similarity": 0.0,
            "ast_node_sequence_similarity": 0.0}
ZERO_DATAFLOW = {"dataflow_match_score": 0.0, "variable_flow_similarity": 0.0,
                 "dependency_graph_similarity": 0.0, "assignment_order_similarity": 0.0}


def syntax_error(which, e):
    return {
        "ok": False,
        "error": {"which": which, "message": e.msg or "invalid syntax",
                  "line": e.lineno or 0, "col": e.offset or 0},
        "ast": dict(ZERO_AST),
        "dataflow": dict(ZERO_DATAFLOW),
    }


def analyse(candidate, reference):
    trees = {}
    for which, code in (("candidate", candidate), ("reference", reference)):
        try:
            trees[which] = parse(code)
        except SyntaxError as e:  # IndentationError is one too
            return syntax_error(which, e)
        except (ValueError, RecursionError, MemoryError) as e:  # NUL bytes, absurd nesting
            return syntax_error(which, SyntaxError(str(e) or type(e).__name__))
    feats = {w: ast_features(t) for w, t in trees.items()}
    flows = {w: extract_dataflow(t) for w, t in trees.items()}
    ast_part = ast_match(feats["candidate"], feats["reference"])
    ast_part.update({w: ast_summary(f) for w, f in feats.items()})
    flow_part = dataflow_match(flows["candidate"], flows["reference"])
    flow_part.update(flows)
    return {"ok": True, "ast": ast_part, "dataflow": flow_part}


def bad_request(message):
    json.dump({"ok": False, "error": {"which": "request", "message": message, "line": 0,
                                      "col": 0}}, sys.stdout)
    sys.stdout.write("\n")
    return 2


def main():
    try:
        req = json.loads(sys.stdin.buffer.read().decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as e:
        return bad_request(f"the request is not JSON: {e}")
    if not isinstance(req, dict) or not all(isinstance(req.get(k), str)
                                            for k in ("candidate", "reference")):
        return bad_request('the request must be {"candidate": "<code>", "reference": "<code>"}')
    json.dump(analyse(req["candidate"], req["reference"]), sys.stdout, sort_keys=True)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
