from __future__ import annotations

import subprocess
import sys

import ranklens
from ranklens.cli import main


def test_import_is_cheap():
    code = (
        "import sys, ranklens, ranklens.io, ranklens.engine, ranklens.rankers, ranklens.embedders, ranklens.cli;"
        "ranklens.cli.build_parser();"
        "bad=[m for m in ('torch','sentence_transformers','transformers','faiss','spacy','ir_datasets') if m in sys.modules];"
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_version_and_help(capsys):
    try:
        main(["--version"])
    except SystemExit as e:
        assert e.code == 0
    assert ranklens.__version__ in capsys.readouterr().out
    assert main([]) == 2


def test_cache_command(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("RANKLENS_CACHE_DIR", str(tmp_path))
    assert main(["cache", "info"]) == 0
    assert '"scores": {}' in capsys.readouterr().out
    assert main(["cache", "clear"]) == 0
