"""The include rules of gpu/, checked on the source tree (ctest layout.include_rules):

- a filter folder (gpu/filters/NAME/) includes only its own files, gpu/filters/common/,
  gpu/filters/filter.h, gpu/cuda/ and gpu/image.h: a filter leans on no other filter;
- gpu/filters/common/ includes only itself, gpu/filters/filter.h, gpu/cuda/ and gpu/image.h;
- gpu/color/ includes only itself, gpu/cuda/ and gpu/image.h, and gpu/cuda/ only itself and
  gpu/image.h: the layers below the chain import nothing above them;
- app/ includes no filter folder (gpu/filters/NAME/): the program meets filters through the
  registry, the chain and filter.h only (commands and keys come from the filters' tables).

Only the project's own quoted includes ("gpu/...", "io/...", "app/...") are judged. Each
offending line is printed as FILE:LINE: the include and the rule, and the exit code is 1."""
import pathlib
import re
import sys

SOURCES = (".h", ".cuh", ".cpp", ".cu")
INCLUDE = re.compile(r'^\s*#\s*include\s+"((?:gpu|io|app)/[^"]+)"')
BASE = ("gpu/cuda/", "gpu/image.h")


def allowed(parts):
    """(what a file may include, the rule's text) for a file under gpu/ (its path's parts
    from the tree's root), or None."""
    if parts[:2] == ("gpu", "filters") and len(parts) > 3:
        folder = "/".join(parts[:3]) + "/"
        if parts[2] == "common":
            return (folder, "gpu/filters/filter.h") + BASE, "gpu/filters/common/ includes only itself, " \
                "gpu/filters/filter.h, gpu/cuda/ and gpu/image.h"
        return (folder, "gpu/filters/common/", "gpu/filters/filter.h") + BASE, \
            f"a filter folder ({folder}) includes only its own files, gpu/filters/common/, gpu/filters/filter.h, " \
            "gpu/cuda/ and gpu/image.h"
    if parts[:2] == ("gpu", "color"):
        return ("gpu/color/",) + BASE, "gpu/color/ includes only itself, gpu/cuda/ and gpu/image.h"
    if parts[:2] == ("gpu", "cuda"):
        return BASE, "gpu/cuda/ includes only itself and gpu/image.h"
    return None


FILTER_FOLDER = re.compile(r"^gpu/filters/[^/]+/")


def offences_in(path, root):
    """The offending include lines of one file."""
    rel = path.relative_to(root)
    if rel.parts[0] == "app":
        for number, line in enumerate(path.read_text().splitlines(), 1):
            m = INCLUDE.match(line)
            if m and FILTER_FOLDER.match(m.group(1)):
                yield f"{rel}:{number}: includes \"{m.group(1)}\": app/ includes no filter folder " \
                    "(gpu/filters/NAME/); use the registry, the chain and filter.h"
        return
    rule = allowed(rel.parts)
    if rule is None:
        return
    prefixes, text = rule
    for number, line in enumerate(path.read_text().splitlines(), 1):
        m = INCLUDE.match(line)
        if m and not m.group(1).startswith(prefixes):
            yield f"{rel}:{number}: includes \"{m.group(1)}\": {text}"


def offences(root):
    for top in ("gpu", "app"):
        for path in sorted((root / top).rglob("*")):
            if path.suffix in SOURCES and path.is_file():
                yield from offences_in(path, root)


def self_test():
    """Planted offences, one per rule, are each named; allowed includes are not."""
    import tempfile
    planted = {
        "gpu/filters/edges/a.h": ('#include "gpu/filters/blur/box_blur_math.h"', True),
        "gpu/filters/edges/b.cu": ('#include "gpu/filters/common/border.h"\n#include "gpu/cuda/launch.cuh"', False),
        "gpu/filters/common/c.h": ('#include "gpu/filters/kmeans/kmeans.h"', True),
        "gpu/color/d.h": ('#include "gpu/processor.h"', True),
        "gpu/cuda/e.h": ('#include "gpu/color/pixel_format.h"', True),
        "gpu/filters/gauss/f.cpp": ('#  include "app/options.h"', True),
        "app/input/g.cpp": ('#include "gpu/filters/blur/blur_filter.h"', True),
        "app/input/h.cpp": ('#include "gpu/filters/registry.h"\n#include "gpu/filters/chain.h"', False),
    }
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        for name, (text, _) in planted.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(text + "\n")
        found = list(offences(root))
    named = {line.split(":", 1)[0] for line in found}
    wrong = [n for n, (_, bad) in planted.items() if (n in named) != bad]
    print("self-test:", "ok" if not wrong else f"misjudged {wrong}", f"({len(found)} named)")
    return 1 if wrong else 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    found = list(offences(pathlib.Path(__file__).resolve().parents[2]))
    for line in found:
        print(line)
    print(f"include rules: {len(found)} offending include(s)" if found else "include rules: kept")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
