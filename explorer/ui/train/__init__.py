"""The Train page (app.py): the corpus input, the settings form and its values (`settings`), the
course's one-click lessons, the Train button, training in a worker, and the finished run's summary.
"""
