"""A run of the app, as every page and the server hold it: its settings (`settings`: the Train
form's values, their URL form, the `RunConfig` they make) and the finished run (`run`: `Run`, its
key of corpus digest and settings, and a session's `RunCache` of them).

Pure: no Streamlit, no worker, no store. Training a run, storing and sharing it is the session
layer's (explorer.session); drawing it is the views' (explorer.views).
"""
