"""The Streamlit app through AppTest (streamlit.testing), no browser."""
