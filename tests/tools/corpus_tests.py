#!/usr/bin/env python3
"""Names the GoogleTest tests that read the model corpus (../shared).

A test reads the corpus when its body, its fixture or a helper it calls
(transitively, within its file) uses GDS_REQUIRE_SHARED, modelPath,
dataPath or sharedDir. Prints one gtest filter pattern per line
("Suite.Name", or "*/Suite.Name/*" for value-parameterized tests)."""
import re
import sys

MARKERS = re.compile(r"\b(GDS_REQUIRE_SHARED|modelPath|dataPath|sharedDir|sharedAvailable)\b")
TEST = re.compile(r"^(TEST|TEST_F|TEST_P|TYPED_TEST)\(\s*(\w+)\s*,\s*(\w+)")
IDENT = re.compile(r"\b[A-Za-z_]\w*\b")


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def chunks(text):
    """Top-level pieces: a new one starts at each line that begins in column 0
    with something other than a closing brace or a preprocessor line."""
    pieces, current = [], []
    for line in text.split("\n"):
        if line[:1] and not line[:1].isspace() and line[0] not in "}#" and current:
            pieces.append("\n".join(current))
            current = []
        current.append(line)
    if current:
        pieces.append("\n".join(current))
    return pieces


def declared_name(piece):
    """The name a non-test top-level piece declares (class, struct, function,
    variable), or None."""
    m = re.match(r"\s*(?:template\s*<[^>]*>\s*)?(?:class|struct)\s+(\w+)", piece)
    if m:
        return m.group(1)
    head = piece.split("{", 1)[0].split("=", 1)[0]
    m = re.search(r"(\w+)\s*\([^()]*(\([^()]*\)[^()]*)*\)\s*(const)?\s*$", head.strip()) or \
        re.search(r"(\w+)\s*(\[[^\]]*\])?\s*$", head.strip())
    return m.group(1) if m else None


def corpus_tests(path):
    text = strip_comments(open(path, encoding="utf-8", errors="replace").read())
    pieces = chunks(text)
    tests, helpers = [], {}
    for piece in pieces:
        m = TEST.match(piece)
        if m:
            tests.append((m.group(1), m.group(2), m.group(3), piece))
        else:
            name = declared_name(piece)
            if name and name not in ("namespace",):
                helpers[name] = helpers.get(name, "") + "\n" + piece
    corpus = {name for name, body in helpers.items() if MARKERS.search(body)}
    changed = True
    while changed:  # helpers that use corpus helpers
        changed = False
        for name, body in helpers.items():
            if name not in corpus and corpus & set(IDENT.findall(body)):
                corpus.add(name)
                changed = True
    out = []
    for kind, suite, test, body in tests:
        if MARKERS.search(body) or corpus & set(IDENT.findall(body)):
            out.append(f"*/{suite}.{test}/*" if kind == "TEST_P" else f"{suite}.{test}")
    return out


if __name__ == "__main__":
    for source in sys.argv[1:]:
        for pattern in corpus_tests(source):
            print(pattern)
