"""Built-in sample corpora and sample sentences for the app.

The corpora come from the project's seed material: the Hugging Face course's four-sentence corpus
(chapter 6, WordPiece/BPE notebooks), the German three-sentence corpus of the "BPE German demo",
and the "A Study in Scarlet" paragraph (Project Gutenberg 244) with the English/German sample
sentences of the BPE/WordPiece tokenization tutorial. The multilingual sample is ours: it packs the
cases a tokenizer display has to get right (ZWJ emoji sequences, flags, CJK, combining accents,
right-to-left scripts, code with indentation). The book-size sample is tinyshakespeare (1.1 MB of
public-domain Shakespeare from karpathy/char-rnn, explorer/data/README.md), read from the package
the first time it is asked for.

What it does not do: decide training settings (the app's defaults do that).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"
# Samples above this size are not put in the Train page's text area: every rerun would send them
# back to the server with the widget state (a preview is shown instead).
LARGE_SAMPLE_CHARACTERS = 100_000


@dataclass(frozen=True)
class Sample:
    """A built-in corpus: `key` goes into shareable URLs, `label` is what people see. Its text is
    `inline` or, for a large one, the file `file_name` of explorer/data, read on first use."""

    key: str
    label: str
    inline: str = ""
    source: str = ""
    file_name: str = ""

    @property
    def text(self) -> str:
        return _read_data(self.file_name) if self.file_name else self.inline

    @property
    def large(self) -> bool:
        """Too large for the Train page's text area (it shows a preview instead)."""
        return len(self.text) > LARGE_SAMPLE_CHARACTERS


@functools.lru_cache(maxsize=4)
def _read_data(file_name: str) -> str:
    return (DATA / file_name).read_text(encoding="utf-8")


HF_COURSE = Sample(
    key="hf-course",
    label="Hugging Face course (4 sentences)",
    inline="\n".join(
        [
            "This is the Hugging Face Course.",
            "This chapter is about tokenization.",
            "This section shows several tokenizer algorithms.",
            "Hopefully, you will be able to understand how they are trained and generate tokens.",
        ]
    ),
    source="Hugging Face NLP course, chapter 6 (BPE and WordPiece tokenization)",
)

GERMAN = Sample(
    key="german",
    label="German demo (3 sentences)",
    inline="\n".join(
        [
            "Ich bin ein deutscher Text.",
            "Und ich bin ein etwas längerer deutscher Text.",
            "Auch ich bin deutschsprachig.",
        ]
    ),
    source="BPE demo notebook (German corpus)",
)

STUDY_IN_SCARLET = Sample(
    key="scarlet",
    label="A Study in Scarlet (one paragraph)",
    inline="\n".join(
        [
            "This was a lofty chamber, lined and littered with countless bottles.",
            "Broad, low tables were scattered about, which bristled with retorts,",
            "test-tubes, and little Bunsen lamps, with their blue flickering flames.",
            "There was only one student in the room, who was bending over a distant",
            "table absorbed in his work. At the sound of our steps he glanced round",
            "and sprang to his feet with a cry of pleasure. \u201cI\u2019ve found it! I\u2019ve",
            "found it,\u201d he shouted to my companion, running towards us with a",
            "test-tube in his hand. \u201cI have found a re-agent which is precipitated",
            "by h\u00e6moglobin, and by nothing else.\u201d Had he discovered a gold mine,",
            "greater delight could not have shone upon his features.",
        ]
    ),
    source="Arthur Conan Doyle, A Study in Scarlet (Project Gutenberg 244)",
)

MULTILINGUAL = Sample(
    key="multilingual",
    label="Multilingual, emoji and code",
    inline="\n".join(
        [
            (
                "The family \U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466 went to Berlin "
                "\U0001f1e9\U0001f1ea and Tokyo \U0001f1ef\U0001f1f5."
            ),
            "The family ate cake in the caf\u00e9 and the children laughed \U0001f602\U0001f602.",
            (
                "Na\u00efve people in Z\u00fcrich order a cr\u00e8me br\u00fbl\u00e9e; se\u00f1ora "
                "Mu\u00f1oz orders a\u0301 decomposed one."
            ),
            (
                "\u6771\u4eac\u306f\u65e5\u672c\u306e\u9996\u90fd\u3067\u3059\u3002\u6771\u4eac\u306e\u4eba"
                "\u53e3\u306f\u591a\u3044\u3002"
            ),
            "\u6211\u559c\u6b22\u5b66\u4e60\u4e2d\u6587\uff0c\u4e2d\u6587\u5f88\u6709\u610f\u601d\u3002",
            (
                "\ud55c\uad6d\uc5b4\ub294 \uc7ac\ubbf8\uc788\uc5b4\uc694. \ud55c\uad6d\uc5b4\ub97c "
                "\ubc30\uc6cc\uc694."
            ),
            (
                "\u0645\u0631\u062d\u0628\u0627 \u0628\u0627\u0644\u0639\u0627\u0644\u0645\u060c "
                "\u0645\u0631\u062d\u0628\u0627 \u0628\u0643\u0645."
            ),
            (
                "\u05e9\u05dc\u05d5\u05dd \u05e2\u05d5\u05dc\u05dd, \u05e9\u05dc\u05d5\u05dd "
                "\u05dc\u05db\u05d5\u05dd."
            ),
            (
                "\u0417\u0434\u0440\u0430\u0432\u0441\u0442\u0432\u0443\u0439, \u043c\u0438\u0440! "
                "\u041f\u0440\u0438\u0432\u0435\u0442, \u043c\u0438\u0440!"
            ),
            "def tokenize(text):",
            "    tokens = text.split()  # split on whitespace",
            "    return [token.lower() for token in tokens if token]",
            'if __name__ == "__main__": print(tokenize("Hello, World!"))',
        ]
    ),
    source="written for this app",
)

SHAKESPEARE = Sample(
    key="shakespeare",
    label="Shakespeare (1.1 MB, a book)",
    file_name="tinyshakespeare.txt",
    source="tinyshakespeare from karpathy/char-rnn: Shakespeare's plays, public domain",
)

SAMPLES: dict[str, Sample] = {
    sample.key: sample for sample in (HF_COURSE, GERMAN, STUDY_IN_SCARLET, MULTILINGUAL, SHAKESPEARE)
}

# The tutorial's two sentences: the same meaning in English and German.
SAMPLE_SENTENCES: tuple[str, ...] = (
    "A mouse called Petar sits on the legendary throne in the ivory tower.",
    "Auf dem legendären Thron im Elfenbeinturm sitzt eine Maus namens Petar.",
)


def sample_by_key(key: str | None) -> Sample | None:
    """The sample with this URL key, or None for an unknown or missing key."""
    return SAMPLES.get(key) if key else None
