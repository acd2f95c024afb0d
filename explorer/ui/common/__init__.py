"""What every page shares: session state (`state`), the page frame and sidebar (`frame`), shareable
URLs (`link`), literal text (`literal`), the server's worker pool and run store (`serving`),
runs as the app keeps them (`runs`, `run_views`), jobs of visitors gone (`abandoned`) and
Plotly figures with their titles (`plotly_figures`).
"""
