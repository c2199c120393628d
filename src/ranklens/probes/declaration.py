"""The ``probes`` analysis: ABNIRML behavioural probes (MacAvaney et al., TACL 2022). Declared once;
the CLI (``ranklens probes``), experiment files (``type = "probes"``), the demo and the report derive
from it.

Defaults follow the paper: every sample (no cap), measure-and-match controls held identical
(overlap-0 documents left out of overlap pairs, as the reference code whose counts the paper
reports), words and prepositions shuffled within each sentence (the reference code's whole-document
word shuffle: ``shuffle_words_scope="document"``), scikit-learn's stop words (the reference code's,
Terrier's: ``stopword_list="terrier"``), typos from Wikipedia's whole list of common
misspellings, the non-relevant sentence from another document judged non-relevant for the same
query, the paper's NER types for NQ factuality, a two-sided paired t-test at p < 0.01 with a
Bonferroni correction over each table (probe family; re-applied over every cell when several
datasets are joined into one table), δ the median adjacent top-10 difference after re-ranking (the
official DL19 run in the paper: give it as ``calibrate_on``). Where the paper's text is silent the
reference code's configuration is the default: typos leave stopwords intact (its ``Typo-nostops``
probe). One default departs from the paper's text: symmetric probes (paraphrase) are tested with
the reference code's t-test of ``|diff|``, because the text's paired test of
``(R(q,d1), R(q,d2))`` depends on the arbitrary order of d1 and d2 (``symmetric_test="signed"``
is the text's test). Every other choice is a named parameter, recorded in each result's
provenance and listed in the paper tables' legend.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..declare import Analysis, ModelRows, ResultKind, param

__all__ = ["ANALYSIS", "PAPER_PROBES", "Params"]

#: The probes of the paper's Tables 1-3 (all judged documents; the ``-rel``/``-nonrel`` variants
#: and ``demo-*`` are extra).
PAPER_PROBES = ("mm-*", "tr-del-stops-punct", "tr-lemmatize", "tr-shuffle-words", "tr-shuffle-sents",
                "tr-shuffle-preps", "tr-typo", "tr-doc2query", "tr-add-nonrel-sent", "ds-*")


@dataclass(frozen=True)
class Params:
    probes: tuple[str, ...] = param(PAPER_PROBES, "probe names or glob patterns (`ranklens ls probes`); default: "
                                    "the paper's Tables 1-3")
    cap: int = param(0, "samples per probe at most (seeded sub-sample); 0 = every sample (the paper)", min=0)
    delta: tuple[str, ...] = param(("calibrate",), "effect threshold: 'calibrate' (median adjacent top-10 "
                                   "difference, the paper), 'pNN' (a percentile of them) or a number; LABEL=VALUE "
                                   "for one model")
    calibrate_on: str = param("", "where delta is calibrated: a TREC run file = re-rank its candidates (the paper: "
                              "the official DL19 run; texts from calibration-texts), a collection spec (demo, a "
                              "directory, irds:ID) = re-rank BM25's top calibration-depth there; '' = the analysed "
                              "collection")
    calibration_texts: str = param("", "collection spec holding the texts of a calibration run's candidates; '' = "
                                   "the analysed collection")
    calibration_queries: int = param(0, "calibration queries (seeded sub-sample); 0 = all (the paper)", min=0)
    calibration_depth: int = param(20, "BM25 depth re-ranked to calibrate delta when no calibration run is "
                                   "given (ranklens' procedure for a bare collection)", min=2)
    alpha: float = param(0.01, "significance level of the paired t-tests (the paper: 0.01)", min=0.0, max=1.0)
    correction: str = param("bonferroni", "multiple-testing correction (the paper: bonferroni)",
                            choices=("bonferroni", "holm", "bh", "none"))
    correction_scope: str = param("table", "family of the correction: 'table' = each probe family (the paper's "
                                  "Tables 1-3, 'a Bonferroni correction over each table'), 'all' = every cell",
                                  choices=("table", "all"))
    symmetric_test: str = param("abs", "test of symmetric probes: 'abs' = t-test of |diff| (reference code; "
                                "independent of the order of d1 and d2), 'signed' = paired t-test",
                                choices=("abs", "signed"))
    n_boot: int = param(1000, "bootstrap resamples of each score's 95% CI", min=10)
    sweep: tuple[str, ...] = param(("mm-rel-ctrl-len", "tr-del-stops-punct", "ds-paraphrase-mrpc"),
                                   "probes of the delta sweep (the paper's Fig. 2); none = no sweep")
    data_dir: str = param("auto", "data root with the dataset-transfer data (mrpc/, jfleg/, ...) and misspellings/; "
                          "auto = $RANKLENS_DATA, then the user data cache (`ranklens data list`); never "
                          "relative to the working directory")
    missing_data: str = param("error", "a probe whose data resource is found nowhere: 'error' (names the resource, "
                              "the places looked and the fix) or 'skip' (the probe is skipped, with a warning)",
                              choices=("error", "skip"))
    misspellings: str = param("auto", "typo list: auto or wikipedia (the registry's 'misspellings' resource, the "
                              "Wikipedia list the paper uses), a .tab/.json file, or 'char' (character-level "
                              "typos, reported as tr-typo-char)")
    typo_stopwords: bool = param(False, "misspell stopwords too (the paper does not say; the default leaves them "
                                 "intact, the reference code's Typo-nostops configuration)")
    typo_max_edit: int = param(-1, "typo list: drop misspellings more than this many edits from the word; -1 = "
                               "Wikipedia's list whole (the paper) and 2 on noisy correct->[misspellings] JSON "
                               "lists only; 0 = keep every variant of every list", min=-1)
    typo_rate: float = param(0.5, "share of words given a character-level typo (misspellings=char only)",
                             min=0.0, max=1.0, applies_when={"misspellings": ("char",)})
    nonrel_source: str = param("same-query", "where '+ non-relevant sentence' takes its sentence: a document "
                               "judged non-relevant for the same query (reference code) or for another query "
                               "(an off-topic sentence); never the manipulated document itself (the reference "
                               "code does not exclude it)", choices=("same-query", "other-query"))
    nonrel_max_grade: int = param(0, "highest relevance grade counted non-relevant ('+ non-relevant sentence' "
                                  "source, -rel/-nonrel subsets): 0 = DL19's irrelevant; ANTIQUE needs 1 (off-topic)")
    shuffle_words_scope: str = param("sentence", "shuffle words within each sentence (the paper's text) or "
                                     "across the whole document (the reference code's ShufWords, whose results "
                                     "are the paper's Table 2: spaCy tokens, punctuation included, shuffled "
                                     "together)", choices=("sentence", "document"))
    stopword_list: str = param("sklearn", "stop-word list of measure-and-match (length, TF, overlap), remove-stopwords "
                           "and typos (stopwords left intact): 'sklearn' (scikit-learn's, 318 words) or 'terrier' "
                           "(Terrier's, 733: the reference code's); lemmatize and transfer keep scikit-learn's",
                           choices=("sklearn", "terrier"))
    shuffle_preps_scope: str = param("sentence", "shuffle prepositions within each sentence (the paper) or across "
                                     "the whole document (reference code)", choices=("sentence", "document"))
    lemmatize_stopwords: bool = param(False, "lemmatize stopwords too (the reference code keeps them)")
    mm_len_tolerance: float = param(0.0, "measure-and-match: relative length difference still matched as "
                                    "'equal length' (the paper: 0, identical)", min=0.0, max=1.0)
    mm_overlap_tolerance: float = param(0.0, "measure-and-match: overlap difference still matched as equal "
                                        "(the paper: 0, identical)", min=0.0, max=1.0)
    mm_overlap_zeros: bool = param(False, "measure-and-match: let documents with overlap 0 (no query term) form "
                                   "overlap pairs (the reference code, whose counts the paper reports, leaves them out)")
    require_lemma_overlap: bool = param(True, "transfer probes: drop samples whose query shares no non-stopword "
                                        "lemma with both texts (the paper)")
    transfer_chunk_rule: str = param("content", "transfer probes: the shared noun chunks a query is drawn among: "
                                     "'content' (those sharing a non-stopword lemma with both texts: the paper, "
                                     "no usable pair discarded), 'min-length' (longer than 5 characters: the "
                                     "reference code), 'any' (any shared chunk, then the lemma filter)",
                                     choices=("content", "min-length", "any"))
    transfer_split: str = param("all", "MRPC, JFLEG and TurkCorpus split(s) (the paper: all)",
                                choices=("all", "train", "test", "dev", "tune"))
    transfer_reference: str = param("all", "JFLEG / TurkCorpus references used (the paper: all), or one index")
    nq_question_filter: str = param("answer", "NQ: drop questions containing the answer (the paper) or any "
                                    "answer word (reference code)", choices=("answer", "any-token"))
    expander: str = param("", "doc2query model directory or expansions file (tr-doc2query is skipped without)")
    pairs_file: str = param("", "TSV/JSONL file of text pairs for the 'pairs' probe", path=True)
    pairs_symmetric: bool = param(False, "the 'pairs' probe is symmetric")

    def check(self) -> list[str]:
        problems = []
        from ..declare import resolve
        from ..errors import ValidationError

        select_probes = resolve("ranklens.probes.catalog:select_probes")  # by name: the catalog reads these defaults

        for field_name, patterns in (("probes", self.probes), ("sweep", self.sweep)):
            for pat in patterns:  # a name that matches no probe fails before anything runs
                try:
                    select_probes([pat])
                except ValidationError as exc:
                    problems.append(f"{field_name}: {exc}")
        for d in self.delta:
            v = d.partition("=")[2] if "=" in d else d
            try:
                from .delta import parse_delta

                parse_delta(v)
            except Exception as exc:  # noqa: BLE001 - reported with the key path
                problems.append(f"delta: {exc}")
        try:  # every delta a number: nothing is calibrated and there is no delta sweep
            from .delta import parse_delta

            explicit = all(parse_delta(d.partition("=")[2] if "=" in d else d).mode == "explicit" for d in self.delta)
        except Exception:  # noqa: BLE001 - reported above
            explicit = False
        defaults = type(self)()
        for name in ("calibrate_on", "calibration_texts", "calibration_queries", "calibration_depth", "sweep"):
            if explicit and getattr(self, name) != getattr(defaults, name) and not (name == "sweep" and not self.sweep):
                problems.append(f"{name}: ignored: every delta is a number ({', '.join(self.delta)}), so nothing is "
                                "calibrated and there is no delta sweep; give delta = calibrate (or pNN) or drop "
                                f"{name} (an ignored option is an error)")
        from .delta import is_calibration_run

        if (not explicit and is_calibration_run(self.calibrate_on)  # its candidates are re-ranked
                and self.calibration_depth != defaults.calibration_depth):
            problems.append(f"calibration_depth: ignored with a calibration run (calibrate_on = {self.calibrate_on}: "
                            "its candidates are re-ranked, not BM25's top calibration-depth); drop "
                            "calibration_depth or calibrate on a collection (an ignored option is an error)")
        if self.misspellings == "char" and self.typo_max_edit != -1:  # character typos read no list to filter
            problems.append("typo_max_edit: ignored with misspellings = 'char' (character-level typos, no "
                            "misspelling list to filter); give a typo list or drop typo_max_edit "
                            "(an ignored option is an error)")
        import fnmatch

        for name, value, probe in (("pairs_file", self.pairs_file, "pairs"), ("pairs_symmetric", self.pairs_symmetric,
                                                                             "pairs"),
                                   ("expander", self.expander, "tr-doc2query")):
            if value and not any(fnmatch.fnmatchcase(probe, pat) or pat.startswith(probe) for pat in self.probes):
                problems.append(f"{name}: only the '{probe}' probe reads it and no selected probe is "
                                f"'{probe}'; add it to probes or drop {name} (an ignored option is an error)")
        return problems


ANALYSIS = Analysis(
    name="probes",
    title="Behavioural probes (ABNIRML)",
    params=Params,
    run="ranklens.probes.driver:run",
    help="ABNIRML behavioural probes: effect scores with delta and paired tests",
    description="Measure-and-match, text-manipulation and dataset-transfer probes (MacAvaney et al., TACL 2022). "
                "Sign: diff = R(q,d1) - R(q,d2); manipulation d1 = manipulated text; measure-and-match d1 = more "
                "of the variable; transfer d1 = the attributed text (fluent, simple, neutral, succinct, factual). "
                "Tools: `ranklens probes show`, `ranklens probes table`, `ranklens probes seed-variance`.",
    kinds=(
        ResultKind("probes-table", "Probe effect scores", findings="ranklens.probes.findings:probes_table",
                   plots=("ranklens.probes.plots:plot_diff_distributions",),
                   paper_table="ranklens.probes.paper:paper_table", extra_html="ranklens.probes.show:samples_html",
                   model_rows=ModelRows("model", ("score",), items=("probe", "dataset"), ci=("ci_low", "ci_high"),
                                        n="n"),
                   higher_is_better={"score": None},  # an effect score in [-1, 1]: a headline row, no "best"
                   summary={"alpha": "number", "correction": "text", "correction_scope": "text",
                            "symmetric_test": "text", "sign_convention": "text", "deltas": "object of numbers",
                            "calibration": "object of text"}),
        ResultKind("probes-delta-sweep", "Delta sweep", findings="ranklens.probes.findings:probes_delta_sweep",
                   plots=("ranklens.probes.plots:plot_delta_sweep",)),
    ),
    demo={"probes": ("mm-rel-ctrl-len", "mm-len-ctrl-rel", "tr-shuffle-words", "tr-del-stops-punct", "tr-typo",
                     "tr-add-nonrel-sent", "demo-paraphrase", "demo-fluency"),
          "cap": 20, "calibration_queries": 10, "misspellings": "char", "sweep": ("tr-shuffle-words",)},
    demo_full={"probes": ("mm-rel-*", "mm-len-ctrl-rel", "mm-tf-ctrl-rel", "mm-overlap-ctrl-rel", "tr-shuffle-words",
                     "tr-shuffle-sents", "tr-shuffle-preps", "tr-del-stops-punct", "tr-lemmatize", "tr-typo",
                     "tr-doc2query", "tr-add-nonrel-sent", "demo-*"),
          "cap": 40, "calibration_queries": 30, "misspellings": "char",
          "sweep": ("tr-shuffle-words", "tr-shuffle-sents", "demo-fluency")},
    tools="ranklens.probes.tools:add_tools",
    listings={"probes": "ranklens.probes.tools:probe_listing"},
    renamed_kinds={"probe-table": "probes-table", "probe-delta-sweep": "probes-delta-sweep"},  # result kinds before the one-name rename still load
)
