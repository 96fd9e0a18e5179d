"""The structure rules of scripts/check-layers beyond one include line (issue 27; docs/architecture.md, "Layers"):

  layer order      every project header a file reaches, through any chain of includes, belongs to its own
                   layer or a lower one: common < models < hw (hw/*.hpp, hw/units, hw/divergence, hw/herding,
                   hw/work, hw/schema) < hw/sc < sim < studies < sc_main. sweep/ stands apart: it reaches only
                   common/, models/ and plain hw/, and only studies/ and sc_main/ reach it. A plain hw/ file
                   reaches no file that includes SystemC or TLM either. Reported at the include that starts the
                   chain, with the chain.
  namespace        a namespace a file declares at its top level (nested names joined: `namespace simtlm {
                   namespace hw {` is simtlm::hw) lies inside its folder's (NAMESPACES); anonymous namespaces,
                   aliases, namespaces nested inside an allowed one and forward declarations into a third-party
                   library's namespace (FOREIGN_NAMESPACES) are free.
  no hw:: in sc_main  the command line names the timing model through sim/ and studies/ only (comments and
                   string literals aside).
  600 lines        no *.cpp *.hpp *.h *.py *.v file of the repository passes 600 lines (build trees aside).
"""
import os
import re

SOURCE_SUFFIXES = (".cpp", ".hpp", ".h", ".cc")
CAPPED_SUFFIXES = (".cpp", ".hpp", ".h", ".py", ".v")
LINE_CAP = 600
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
SYSTEMC_HEADERS = re.compile(r"^(systemc(\.h)?|tlm(\.h)?|tlm_utils/.*|sysc/.*|tlm_core/.*|verilated_sc\.h)$")

# Folder -> the namespaces its files may declare (a declaration may also lie inside one of them).
NAMESPACES = [
    ("common/", ("simtlm::common", "simtlm::stats", "simtlm")),
    ("models/ptx/", ("simtlm::ptx",)),
    ("models/mem/", ("simtlm::mem",)),
    ("models/launch/", ("simtlm::launch",)),
    ("models/config/", ("simtlm::config", "simtlm::yaml_file")),
    ("hw/schema/", ("simtlm::config",)),  # composes the configuration schema (docs/architecture.md, "Layers")
    ("hw/", ("simtlm::hw",)),
    ("sim/", ("simtlm::sim",)),
    ("sweep/", ("simtlm::sweep",)),
    ("studies/", ("simtlm::studies",)),
    ("sc_main/", ("simtlm::cli",)),
]
# Third-party namespaces a header may forward-declare into (`namespace YAML { class Node; }`).
FOREIGN_NAMESPACES = ("YAML", "CLI", "nlohmann", "fmt", "std", "sc_core", "tlm", "testing")
CHECKED_TOPS = ("common", "models", "hw", "sim", "sweep", "studies", "sc_main")
ORDER = {"common": 0, "models": 1, "hw": 2, "hw/sc": 3, "sim": 4, "studies": 5, "sc_main": 6}


def layer_of(rel):
    """The layer of a path relative to the root, or None outside the checked layers."""
    if rel.startswith("hw/sc/"):
        return "hw/sc"
    for top in ("common", "models", "hw", "sim", "sweep", "studies", "sc_main"):
        if rel.startswith(top + "/"):
            return top
    return None


def may_reach(source, target):
    """Whether a file of layer `source` may reach a header of layer `target` (None: outside; free)."""
    if source is None or target is None or source == target:
        return True
    if target == "sweep":
        return source in ("studies", "sc_main")
    if source == "sweep":
        return target in ("common", "models", "hw")
    return ORDER[target] <= ORDER[source]


def source_files(root, tops):
    for top in tops:
        for directory, dirs, files in os.walk(os.path.join(root, top)):
            dirs.sort()
            for name in sorted(files):
                full = os.path.join(directory, name)
                yield os.path.relpath(full, root).replace(os.sep, "/"), full


def project_includes(root, full):
    """(line number, included path relative to the root) of every "..." include that names a file of the tree."""
    out = []
    with open(full, encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if m and m.group(1) == '"' and os.path.isfile(os.path.join(root, m.group(2))):
                out.append((number, m.group(2)))
    return out


def includes_systemc(full):
    with open(full, encoding="utf-8", errors="replace") as f:
        return any((m := INCLUDE.match(line)) and SYSTEMC_HEADERS.match(m.group(2)) for line in f)


def check_reach(root):
    """Layer order over include chains, and SystemC reached from plain hw/."""
    graph, systemc = {}, {}
    for rel, full in source_files(root, CHECKED_TOPS):
        if rel.endswith(SOURCE_SUFFIXES):
            graph[rel] = project_includes(root, full)
            systemc[rel] = includes_systemc(full)

    def chains_from(start):
        """Every header reachable from `start` with the chain that reaches it first (breadth first)."""
        seen, queue, out = {start}, [(start, [start])], []
        while queue:
            node, chain = queue.pop(0)
            for _, header in graph.get(node, []):
                if header in seen:
                    continue
                seen.add(header)
                out.append((header, chain + [header]))
                queue.append((header, chain + [header]))
        return out

    violations = []
    for rel, direct in graph.items():
        source = layer_of(rel)
        plain = source == "hw"
        for number, first in direct:
            reached = [(first, [rel, first])] + [(h, [rel] + c) for h, c in chains_from(first)]
            for header, chain in reached:
                target = layer_of(header)
                bad = None
                if not may_reach(source, target):
                    bad = f"layer order: {source}/ must not reach {target}/"
                elif plain and systemc.get(header):
                    bad = "layer order: plain hw/ must not reach SystemC or TLM"
                if bad:
                    violations.append(f"{rel}:{number}: {bad}: reaches {header} through {' -> '.join(chain[1:])}")
                    break  # one report per include line
    return violations


def strip_code(text):
    """The text with comments, string and character literals blanked (newlines kept, so lines still count)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif (m := re.match(r'R"([^(\s]*)\(', text[i:])) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            end = text.find(")" + m.group(1) + '"', i)
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append('""' + "\n" * text.count("\n", i, j))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


NAMESPACE_OPEN = re.compile(r"\bnamespace\s+([A-Za-z_][\w:]*)?\s*\{")


def declared_namespaces(text):
    """(line, full name) of every named namespace opened outside any named namespace of another name."""
    code = strip_code(text)
    out, stack = [], []  # stack: the namespace each open brace belongs to ("" for other braces)
    i = 0
    while i < len(code):
        m = NAMESPACE_OPEN.match(code, i) if code[i] == "n" and (i == 0 or not (code[i - 1].isalnum() or code[i - 1] == "_")) else None
        if m:
            name = m.group(1) or ""
            enclosing = next((s for s in reversed(stack) if s), "")
            full = (enclosing + "::" + name if enclosing else name) if name else enclosing
            # Checked: a named namespace at the top or right inside `simtlm`; deeper ones lie inside a checked one.
            if name and enclosing in ("", "simtlm"):
                out.append((code.count("\n", 0, i) + 1, full))
            stack.append(full if name else "(anonymous)")  # nothing inside an anonymous one is checked
            i = m.end()
            continue
        if code[i] == "{":
            stack.append("")
        elif code[i] == "}" and stack:
            stack.pop()
        i += 1
    return out


def check_namespaces(root):
    violations = []
    for rel, full in source_files(root, CHECKED_TOPS):
        if not rel.endswith(SOURCE_SUFFIXES):
            continue
        allowed = next((names for folder, names in NAMESPACES if rel.startswith(folder)), None)
        if allowed is None:
            continue
        with open(full, encoding="utf-8", errors="replace") as f:
            text = f.read()
        for line, name in declared_namespaces(text):
            if name == "simtlm" and "simtlm" not in allowed:
                continue  # only opens the project's namespace: what it declares inside is checked
            if name.split("::")[0] in FOREIGN_NAMESPACES:
                continue
            if not any(name == a or name.startswith(a + "::") for a in allowed):
                violations.append(f"{rel}:{line}: namespace: {rel.split('/')[0]}/ declares {name}, not "
                                  f"{' or '.join(allowed)}")
    return violations


def check_sc_main_names(root):
    violations = []
    for rel, full in source_files(root, ("sc_main",)):
        if not rel.endswith(SOURCE_SUFFIXES):
            continue
        with open(full, encoding="utf-8", errors="replace") as f:
            code = strip_code(f.read())
        for number, line in enumerate(code.split("\n"), 1):
            if re.search(r"(?<![\w:])hw::", re.sub(r"(::)?\bsimtlm::", " ", line)):
                violations.append(f"{rel}:{number}: sc_main/ names hw:: (reach the model through sim/ or studies/)")
    return violations


def check_line_cap(root):
    violations = []
    for directory, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not (d == ".git" or d == "build" or d.startswith("build-")))
        for name in sorted(files):
            if not name.endswith(CAPPED_SUFFIXES):
                continue
            full = os.path.join(directory, name)
            with open(full, encoding="utf-8", errors="replace") as f:
                lines = sum(1 for _ in f)
            if lines > LINE_CAP:
                rel = os.path.relpath(full, root).replace(os.sep, "/")
                violations.append(f"{rel}:{LINE_CAP + 1}: file has {lines} lines (the cap is {LINE_CAP})")
    return violations


def check(root):
    return check_reach(root) + check_namespaces(root) + check_sc_main_names(root) + check_line_cap(root)


# The self-test's tree: each rule broken once at a known line, and what the rules allow.
SELF_TEST_FILES = {
    "common/c.hpp": "#pragma once\nnamespace YAML {\nclass Node;\n}\nnamespace simtlm::common {}\n",
    "models/ptx/p.hpp": '#pragma once\n#include "common/c.hpp"\nnamespace simtlm::ptx {\nnamespace detail {}\n}\n',
    "hw/sc/s.hpp": "#pragma once\n#include <systemc>\nnamespace simtlm::hw {}\n",
    "hw/units/u.hpp": '#pragma once\n#include "models/ptx/p.hpp"\nnamespace simtlm {\nnamespace hw {}\n}\n',
    "hw/units/v.hpp": '#pragma once\n#include "hw/units/w.hpp"\n',  # reaches hw/sc through w.hpp
    "hw/units/w.hpp": '#pragma once\n#include "hw/sc/s.hpp"\n',
    "hw/divergence/x.hpp": '#pragma once\n#include "models/mem/m.hpp"\n',  # models/mem/m.hpp includes SystemC
    "models/mem/m.hpp": "#pragma once\n#include <tlm>\nnamespace simtlm::mem {}\n",
    "sim/r.hpp": '#pragma once\n#include "hw/sc/s.hpp"\nnamespace simtlm::hw {}\n',  # wrong namespace
    "sim/q.cpp": '#include "sim/t.hpp"\n',  # reaches studies/ through a sim header
    "sim/t.hpp": '#pragma once\n#include "studies/k.hpp"\n',
    "studies/k.hpp": '#pragma once\nnamespace fs = std::filesystem;\nnamespace simtlm::studies {\nnamespace {\n}\n}\n',
    "sweep/y.hpp": '#pragma once\n#include "models/ptx/p.hpp"\n#include "sim/r.hpp"\nnamespace simtlm::sweep {}\n',
    "sc_main/z.cpp": '#include "sweep/y.hpp"\n// hw::Gpu in a comment\nconst char* s = "hw::Gpu";\n'
                     "namespace simtlm::cli {\nint f() { return hw::kLanes; }\n}\n",
    "studies/n.hpp": "#pragma once\nnamespace simtlm {\nnamespace hw {}\n}\n",  # nested, still wrong
    "hw/work/direct.hpp": '#pragma once\n#include "hw/sc/s.hpp"\n',
    "sc_main/root.cpp": "namespace simtlm::cli {\nint g() { return ::simtlm::hw::kLanes; }\n}\n",
    "scripts/long.py": "x = 1\n" * 601,
    "rtl/ok.v": "// line\n" * 600,
}
SELF_TEST_EXPECTED = {
    "hw/units/v.hpp:2: layer order: hw/ must not reach hw/sc/",
    "hw/units/w.hpp:2: layer order: hw/ must not reach hw/sc/",
    "hw/divergence/x.hpp:2: layer order: plain hw/ must not reach SystemC or TLM",
    "sim/q.cpp:1: layer order: sim/ must not reach studies/",
    "sim/t.hpp:2: layer order: sim/ must not reach studies/",
    "sweep/y.hpp:3: layer order: sweep/ must not reach sim/",
    "sim/r.hpp:3: namespace: sim/ declares simtlm::hw, not simtlm::sim",
    "studies/n.hpp:3: namespace: studies/ declares simtlm::hw, not simtlm::studies",
    "sc_main/z.cpp:5: sc_main/ names hw:: (reach the model through sim/ or studies/)",
    "scripts/long.py:601: file has 601 lines (the cap is 600)",
    "hw/work/direct.hpp:2: layer order: hw/ must not reach hw/sc/",
    "sc_main/root.cpp:2: sc_main/ names hw:: (reach the model through sim/ or studies/)",
}


def self_test_violations(root):
    """Writes the self-test's tree under `root`; its violations, each cut before the chain."""
    for rel, text in SELF_TEST_FILES.items():
        os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
        with open(os.path.join(root, rel), "w") as f:
            f.write(text)
    return {v.split(": reaches ")[0] for v in check(root)}
