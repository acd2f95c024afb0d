"""The real jobs of the worker pool, taking and returning plain data (small where possible).

- `train_task(reporter, corpus_text, settings, limits, store=None, jobs=1, engine=None)`:
  `explorer.train.train_corpus` (or, when `corpus_text` is a host's file or an uploaded count
  file's bytes, explorer.work.count_tasks.train_from_file: neither is ever stored); its words
  counted in `jobs` forked processes: the pool's `counting_jobs`; its merges on `engine`, the server's,
  explorer.training.engines) under the run's budget (`Limits.budget()`), reporting
  {"phase": "counting"} (with "bytes_read" and "total_bytes" for a host's file) and then
  {"phase": "training", "step", "planned", "unit"} ("merge", or "round" for Unigram, whose
  `planned` is an estimate of its rounds), stopping when the reporter says so (Stop, a visitor
  gone) or the budget does. The step limit counts merges: a Unigram run has the time limit only,
  and the worker's memory limit (explorer.work.worker): past it, it stops with its rounds so far.
  `settings` is a `RunConfig.to_dict()`, `limits` a `dataclasses.asdict(Limits)`. Returns
  {"trace_json" (the trace's JSON as UTF-8 bytes, built once: stored as they are, or handed
  to the server as bytes, which pickle copies as they are), "stored_key", "steps" (merges
  or rounds), "stop_reason", "stopped_by", "seconds"}; with a `store` dict
  (the store's `location()` plus "key", "stopped_seed", "meta" and "keep_corpus") the run is
  written to that store by the worker (compression included), under "key", or when the visitor
  stopped it under a key of its own (explorer.runstore.stopped_run_key), and only that key comes
  back (`trace_json` None).
- `measure_task(reporter, corpus_text, tokenizer, sample)`: `explorer.compare.measure_corpus` over
  the corpus or a stated sample of it, `MEASURE_CHUNK` lines at a time with progress
  {"lines_done", "lines"}. `tokenizer` is a `TokenizerColumn.spec`: {"name", "tokenizer_json"},
  {"name", "library_json"} or {"pretrained": "gpt2"};
  `sample` is {"kind": "whole"}, {"kind": "first", "max_bytes"} or {"kind": "lines",
  "max_bytes", "seed"} (explorer.checks.corpus_prefix / sample_lines). Returns {"metrics":
  TokenizerMetrics fields, "seconds", "lines", "characters", "complete", "research",
  "research_reason"}: the research figures of the same lines (explorer.compare.research, seconds
  are the corpus figures' alone), or None and one sentence saying why.
- `read_uploads_task(reporter, files, max_entries)`: the Compare page's uploaded tokenizer files
  read (`explorer.compare.read_uploads`) and their entries counted; returns each tokenizer as an
  `explorer.work.chunked` pickle the server loads without a long hold of its GIL.
- `library_encode_task(reporter, library, texts)`, `library_decode_task(reporter, library, ids)`: a
  tokenizer.json only the `tokenizers` library reads, parsed here (once per worker) and not in the
  server, encodes the live box's sentences or decodes ids (explorer.compare.library_host).
- `merge_overlap_task(reporter, run_merges, pretrained)`: a BPE run's merges against a bundled
  byte-level BPE tokenizer's (explorer.compare.merge_overlap), whose merges are recovered here.
- `audit_task(reporter, corpus_text, subject, sample)`: the Vocabulary page's audit
  (`explorer.measures.audit`) of a run's tokenizer (its tokenizer.json), an uploaded one (any
  `TokenizerColumn.spec` but a library-only upload's: `NOT_AUDITED`) or a bundled one, on the
  corpus or a stated sample of it, with the names of the tokens it lists.

- `warm_up(step)`: one of `WARM_UP_STEPS`, run by an idle worker (explorer.work.config): "measuring"
  imports what `measure_task` imports, a pretrained name loads that encoding and its token tables
  (the Compare page's default columns: GPT-2, cl100k_base, o200k_base). About 1.3 s and 110 MB
  per worker in all, which the first Compare visit would otherwise wait for.

Bad input raises ValueError with a sentence, which becomes the job's error.

What it does not do: read count files or a host's files (explorer.work.count_tasks), check a
corpus or settings for the visitor first (explorer.checks does, before submitting), or decide a
run's key (explorer.runstore.run_key).
"""

from __future__ import annotations

import dataclasses
import time

from explorer.checks import Budget, Limits, sampled_text
from explorer.pretrained.registry import PRETRAINED
from explorer.run_config import RunConfig
from explorer.runstore.keys import stopped_run_key
from explorer.training.word_counts import split_lines
from explorer.work.count_tasks import train_from_file

STOP_BUTTON = "the Stop button"
NO_WORDS = "The corpus has no words once normalized and pre-tokenized: try another pre-tokenizer or corpus."
STOPPED = "the measurement was stopped before the end of the lines"
MEASURE_CHUNK = 8 * 4096  # lines measured between two progress reports and stop checks
WARM_UP_STEPS = ("measuring", *PRETRAINED)


def train_task(
    reporter,
    corpus_text: str | dict,
    settings: dict,
    limits: dict,
    store: dict | None = None,
    jobs: int = 1,
    engine: str | None = None,
) -> dict:
    # here: the server imports this module for its names alone
    from explorer.train import train_corpus

    run = RunConfig.from_dict(settings, strict=True)
    unit = run.trainer.step_noun
    checked = Limits(**limits)
    budget = Budget(
        checked.max_seconds,
        checked.max_steps if run.trainer.takes_step_limit else None,
        lambda step, planned: reporter.report(phase="training", step=step, planned=planned, unit=unit),
    )
    reporter.report(phase="counting")
    should_stop = lambda: reporter.should_stop() or budget.should_stop()  # noqa: E731
    if isinstance(corpus_text, dict):  # a count file, or a host's file streamed where it is
        trace = train_from_file(reporter, corpus_text, run, budget, should_stop, jobs, engine)
        corpus_text = ""  # never stored: the run keeps its words and counts, its link names the file
    else:
        trace = train_corpus(
            corpus_text,
            run,
            progress=budget.progress,
            should_stop=should_stop,
            max_steps=budget.step_limit,
            jobs=jobs,
            engine=engine,
        )
    if not trace.words:
        raise ValueError(NO_WORDS)
    trace.record_final_frequencies()  # the Vocabulary page's (Unigram), here in the worker, not on the page
    stopped_by = None
    if trace.stop_reason == "stopped":
        if reporter.cancelled:
            stopped_by = STOP_BUTTON
        elif getattr(trace, "out_of_memory", False):  # a Unigram trace only
            from explorer.work.worker import memory_limit_text

            stopped_by = memory_limit_text()
        else:
            stopped_by = budget.stop_cause(trace.stop_reason, trace.steps)
    result = {
        "trace_json": trace.to_json().encode("utf-8", "surrogatepass"),
        "stored_key": None,
        "steps": trace_steps(trace),
        "stop_reason": trace.stop_reason,
        "stopped_by": stopped_by,
        "seconds": trace.seconds,
    }
    # A run the visitor stopped is theirs alone: stored under the content key, it would be served
    # to the next visitor asking for the whole run. It has a key of its own (every session that
    # waits for this job reads it from there: a reload's, which does not know the corpus).
    if store is not None:
        key = store["key"]
        if reporter.cancelled:
            key = (
                stopped_run_key(store["stopped_seed"], trace_steps(trace))
                if "stopped_seed" in store
                else None
            )
        if key is not None:
            result["stored_key"] = _store_run(store, key, result, corpus_text)
            if result["stored_key"] is not None:
                result["trace_json"] = None
    return result


def trace_steps(trace) -> int:
    """What a run did: its merges, or for a Unigram run its rounds."""
    return trace.steps


def _store_run(store: dict, key: str, result: dict, corpus_text: str) -> str | None:
    from explorer.runstore import store_at

    run_store = store_at(store)
    meta = {
        **store.get("meta", {}),
        **{name: result[name] for name in ("steps", "stop_reason", "stopped_by", "seconds")},
    }
    corpus = corpus_text.encode("utf-8", "surrogatepass") if store.get("keep_corpus", True) else None
    stored = run_store.put(key, result["trace_json"], corpus, meta)
    run_store.close()
    return key if stored else None


# ---------------------------------------------------------------- measuring


def _column(tokenizer: dict):
    """The column a `TokenizerColumn.spec` describes (explorer.compare)."""
    from explorer.compare import UploadedTokenizer, pretrained_column, tokenizer_column
    from explorer.pipeline.tokenizer_json import tokenizer_from_json
    from explorer.pretrained import BUNDLED

    if "pretrained" in tokenizer:
        if tokenizer["pretrained"] not in BUNDLED:
            raise ValueError(
                f"unknown pretrained tokenizer {tokenizer['pretrained']!r} (choose from {', '.join(BUNDLED)})"
            )
        return pretrained_column(tokenizer["pretrained"], bool(tokenizer.get("special_tokens")))
    special_tokens = bool(tokenizer.get("special_tokens", True))
    if "library_json" in tokenizer:  # an upload only the tokenizers library reads (a Unigram model)
        name = tokenizer.get("name", "tokenizer")
        return UploadedTokenizer(
            key=name, name=name, kind="tokenizer.json", library_json=tokenizer["library_json"]
        ).column_for(special_tokens)
    if "sentencepiece" in tokenizer:  # an uploaded SentencePiece model: its file's bytes
        from explorer.compare.columns import sentencepiece_column
        from explorer.pretrained.sentencepiece_backend import SentencePieceTokenizer

        name = tokenizer.get("name", "tokenizer")
        model = SentencePieceTokenizer.from_bytes(tokenizer["sentencepiece"], name)
        return sentencepiece_column(model, name, name, special_tokens=special_tokens)
    exported = tokenizer["tokenizer_json"]
    return tokenizer_column(
        tokenizer_from_json(exported),
        tokenizer.get("name", "tokenizer"),
        exported=exported,
        special_tokens=special_tokens,
    )


def measure_task(reporter, corpus_text: str, tokenizer: dict, sample: dict) -> dict:
    from explorer.compare import measure_corpus
    from explorer.measures.metrics import add_metrics

    started = time.perf_counter()
    column = _column(tokenizer)
    texts = split_lines(sampled_text(corpus_text, sample))
    parts, complete = [], True
    for first in range(0, len(texts), MEASURE_CHUNK):
        if reporter.should_stop():
            complete = False
            break
        reporter.report(lines_done=first, lines=len(texts))
        parts.append(measure_corpus(column, texts[first : first + MEASURE_CHUNK]).metrics)
    if not parts:
        parts.append(measure_corpus(column, []).metrics)
    metrics = add_metrics(parts, column.name)
    seconds = time.perf_counter() - started
    research = (
        measure_research(tokenizer, texts) if complete else {"research": None, "research_reason": STOPPED}
    )
    return {
        "metrics": dataclasses.asdict(metrics),
        "seconds": seconds,
        "lines": metrics.texts,
        "characters": metrics.characters,
        "complete": complete,
        **research,
    }


def measure_research(tokenizer: dict, texts: list[str]) -> dict:
    """`explorer.compare.research.column_research` on the measured lines; a tokenizer the audit
    cannot read gives a reason, not a failed measurement (the corpus figures stand)."""
    from explorer.compare.research import column_research

    try:
        return column_research(tokenizer, texts)
    except Exception as error:  # the corpus figures are measured: keep them, say why these are not
        return {"research": None, "research_reason": f"the audit could not read this tokenizer ({error})"}


def warm_up(step: str) -> None:
    """Load now what the first `measure_task` would load (see `WARM_UP_STEPS`)."""
    if step not in WARM_UP_STEPS:
        raise ValueError(f"unknown warm-up step {step!r} (choose from {', '.join(WARM_UP_STEPS)})")
    from explorer.compare.encoders import load_tables  # imports what measure_task imports

    if step != "measuring":
        load_tables(step)


# ---------------------------------------------------------------- uploaded count files


# ---------------------------------------------------------------- uploaded tokenizers


def read_uploads_task(reporter, files: list[tuple[str, bytes]], max_entries: int | float) -> dict:
    """Compare's uploaded files read into tokenizers here, not in the server (explorer.compare
    .read_uploads: seconds and hundreds of MB for a large file).

    Returns {"tokenizers": [(file indexes, explorer.work.chunked pickle of the UploadedTokenizer
    without its files)], "errors": [one sentence per file that cannot be used]}: the server
    attaches its own copy of the files and loads the rest a chunk at a time (never one long
    hold of its GIL). A tokenizer of more than `max_entries` tokens and merges is an error."""
    from dataclasses import replace

    from explorer.compare import UploadedFile, read_uploads
    from explorer.compare.upload_checks import tokenizer_entries
    from explorer.work import chunked

    uploads = [UploadedFile(name, data) for name, data in files]
    reporter.report(phase="reading")
    found, errors = read_uploads(uploads)
    packed = []
    for tokenizer in found:
        entries = tokenizer_entries(tokenizer)
        if entries > max_entries:
            errors.append(
                f"{tokenizer.file_names or tokenizer.name}: {entries:,} entries (tokens and merges) is "
                f"over the limit of {int(max_entries):,} for an uploaded tokenizer on this server"
            )
            continue
        indexes = [uploads.index(file) for file in tokenizer.files]
        # A SentencePiece model is rebuilt from its bytes (model_bytes) by the server.
        bare = replace(tokenizer, files=(), sentencepiece=None)
        packed.append((indexes, chunked.dumps(bare)))
    return {"tokenizers": packed, "errors": errors}


def library_encode_task(reporter, library, texts: list[str]) -> list:
    """The pieces of each of `texts` in a library-only tokenizer.json (an
    `explorer.compare.library_host.LibraryFile`), parsed here (once per worker and file), never in
    the server: Compare's live box for such an upload."""
    from explorer.compare.library_host import HERE

    return HERE.encode(library, texts)


def library_decode_task(reporter, library, ids: list[int]):
    """`ids` decoded with a library-only tokenizer.json (as `library_encode_task`): an
    `explorer.pretrained.Decoding`."""
    from explorer.compare.library_host import HERE

    return HERE.decode(library, ids)


# ---------------------------------------------------------------- merges against a pretrained tokenizer's


def merge_overlap_task(reporter, run_merges: list[tuple[bytes, bytes]], pretrained: str) -> dict:
    """A BPE run's merges (byte pairs, in merge order) against the bundled byte-level BPE
    `pretrained`'s (explorer.compare.merge_overlap): its merges recovered here, in the worker
    (seconds for a 200k vocabulary; kept for the next run compared with it), and the comparison
    as `MergeOverlap.to_dict()` plus "seconds"."""
    from explorer.compare.merge_overlap import merge_overlap, pretrained_merges

    started = time.perf_counter()
    reporter.report(phase="reading")
    merges = pretrained_merges(pretrained)
    reporter.report(phase="comparing")
    return {**merge_overlap(run_merges, merges).to_dict(), "seconds": time.perf_counter() - started}


# ---------------------------------------------------------------- the vocabulary audit

AUDIT_UNUSED_SHOWN = 60  # unused tokens named in an audit's result (a seeded random sample of them)
NOT_AUDITED = (
    "This upload is a tokenizer.json our reader cannot read (only the tokenizers library can), and the "
    "audit takes each token's bytes from our reader, a bundled tokenizer or a SentencePiece model: it "
    "cannot be audited here."
)


def audit_task(reporter, corpus_text: str, subject: dict, sample: dict) -> dict:
    """The Vocabulary page's audit (explorer.measures.audit) of one tokenizer on the corpus or a
    stated sample of it (`sample` as for `measure_task`). `subject`: {"pretrained": name} (a
    bundled tokenizer, with its BPE replay: stepping stones), or a `TokenizerColumn.spec` of ours
    or an upload, {"name", "tokenizer_json"} (e.g. a run's after k merges) or {"name",
    "sentencepiece"}, read by explorer.compare.research.subject_for. A library-only upload
    ({"library_json"}) raises ValueError(NOT_AUDITED).

    Returns {"audit": the audit's dict, "unreachable_tokens": {id: readable tokens it encodes
    to}, "unused_sample": [{"id", "token"}] (at most AUDIT_UNUSED_SHOWN, seed 0, by id),
    "seconds", "lines"}: the names the page shows, which only the tokenizer here knows."""
    import random

    from explorer.drawing.token_html import readable_token
    from explorer.measures.audit import audit
    from explorer.measures.audit_subjects import subject_from_pretrained

    started = time.perf_counter()
    reporter.report(phase="loading")
    if "pretrained" in subject:
        from explorer.pretrained import BUNDLED

        if subject["pretrained"] not in BUNDLED:
            raise ValueError(
                f"unknown pretrained tokenizer {subject['pretrained']!r} (choose from {', '.join(BUNDLED)})"
            )
        audited = subject_from_pretrained(subject["pretrained"])  # with its replay (subject_for has none)
    else:
        from explorer.compare.research import subject_for

        found = subject_for(subject)
        if found is None:
            raise ValueError(NOT_AUDITED)
        audited = found[1]
    lines = split_lines(sampled_text(corpus_text, sample))
    reporter.report(phase="auditing", lines=len(lines))
    result = audit(audited, lines)

    def shown(token_id: int) -> str:
        data = audited.ordinary.get(token_id)
        return readable_token(data) if data is not None else f"<special {token_id}>"

    unused = result["unused"]["ids"]
    picked = sorted(random.Random(0).sample(unused, min(AUDIT_UNUSED_SHOWN, len(unused))))
    return {
        "audit": result,
        "unreachable_tokens": {
            str(entry["id"]): [shown(token_id) for token_id in entry["encodes_to"]]
            for entry in result["unreachable"]
            if entry["encodes_to"] is not None
        },
        "unused_sample": [{"id": token_id, "token": shown(token_id)} for token_id in picked],
        "seconds": time.perf_counter() - started,
        "lines": len(lines),
    }
