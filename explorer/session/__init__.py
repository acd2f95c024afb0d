"""The server's side of a visitor's session, below the widgets: the worker pool and the run store
every visitor shares (`serving`), a training asked for (`requests`: the checks, the run's key,
then the session's cache, the store or the pool; the CLI asks the same way), uploaded tokenizer
files read in a worker (`upload_jobs`), the values a Compare link holds (`compare_link`) and the
corpus figures Compare asks a worker for (`measuring`).

No Streamlit: the session's own values (`st.session_state`) are the widgets' layer's
(explorer.ui.common.state), handed in and out of these functions as plain values.
"""
