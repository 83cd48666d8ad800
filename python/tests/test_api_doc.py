"""docs/api-reference.md is what scripts/api_doc.py makes of core/texfdtd.h's
comments (`make api-doc`): the header is the one source of the page, and
every function the library exports has its entry."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_reference_page_is_made_from_the_header():
    made = subprocess.run([sys.executable, str(ROOT / "scripts" / "api_doc.py"),
                           str(ROOT / "core" / "texfdtd.h")], check=True,
                          stdout=subprocess.PIPE, text=True).stdout
    page = (ROOT / "docs" / "api-reference.md").read_text()
    assert page == made, "docs/api-reference.md is stale: run `make api-doc`"
    header = (ROOT / "core" / "texfdtd.h").read_text()
    import re
    names = set(re.findall(r"TF_API[^(]*?\b(tf_\w+)\s*\(", header))
    assert len(names) >= 30
    for name in names:
        assert f"{name}(" in page, name
