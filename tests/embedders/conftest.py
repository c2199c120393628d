from __future__ import annotations

import pytest

from tests.rankers._tiny import tiny_bert, tiny_t5


@pytest.fixture(scope="session")
def tiny_ce_dir(tmp_path_factory):
    return tiny_bert(tmp_path_factory.mktemp("tiny_ce"), head="cls", num_labels=1)


@pytest.fixture(scope="session")
def tiny_ce2_dir(tmp_path_factory):
    return tiny_bert(tmp_path_factory.mktemp("tiny_ce2"), head="cls", num_labels=2)


@pytest.fixture(scope="session")
def tiny_t5_dir(tmp_path_factory):
    return tiny_t5(tmp_path_factory.mktemp("tiny_t5"))


@pytest.fixture(scope="session")
def tiny_bert_dir(tmp_path_factory):
    return tiny_bert(tmp_path_factory.mktemp("tiny_bert"))
