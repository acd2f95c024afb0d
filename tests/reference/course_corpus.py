"""The corpus of chapter 6 of the Hugging Face course: the four sentences its BPE, WordPiece and
Unigram sections train on, and whose results the seed notebooks print."""

COURSE_CORPUS = [
    "This is the Hugging Face Course.",
    "This chapter is about tokenization.",
    "This section shows several tokenizer algorithms.",
    "Hopefully, you will be able to understand how they are trained and generate tokens.",
]
