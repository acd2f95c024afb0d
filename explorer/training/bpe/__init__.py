"""BPE and WordPiece training: `trainer.py` (`train`: word counts in, a MergeHistory out, the flavors and
stop reasons in its docstring) on the incremental merge engine (`engine.py`, or the compiled one
through `compiled.py`), its pair queues (`queues.py`), the recorder of every step (`recorder.py`)
and the trace itself (`merge_history.py`), as the `tokenizers` library lays out its trainer beside
its model."""
