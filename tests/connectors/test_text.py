"""Text as platforms take it: a long answer split at sentence boundaries into Slack's blocks (sources on
the last piece), and an e-mail reply's quoted mail and signature cut from the question."""

from __future__ import annotations

from connectors.platforms.base import Outgoing, Source
from connectors.platforms.email import email_body
from connectors.platforms.slack import SECTION_LIMIT, slack_messages
from connectors.text import email_reply_strip, text_split

SENTENCES = [
    f"Sentence number {n} explains one more detail of charging, e.g. the light." for n in range(120)
]


def test_a_long_text_is_split_between_sentences_within_the_limit() -> None:
    text = " ".join(SENTENCES)
    pieces = text_split(text, limit=1000)
    assert len(pieces) > 1 and all(len(piece) <= 1000 for piece in pieces)
    assert all(piece.endswith("the light.") for piece in pieces)  # never mid-sentence ("e.g." kept)
    assert " ".join(pieces) == text
    assert text_split("Short.", limit=1000) == ["Short."]
    word = "x" * 2500
    assert [len(p) for p in text_split(f"A {word} b.", limit=1000)] == [1, 1000, 1000, 503]


def test_slack_messages_keep_each_section_within_slacks_limit_and_sources_on_the_last() -> None:
    outgoing = Outgoing(
        text=" ".join(SENTENCES * 2),
        kind="answer",
        sources=(Source(n=1, title="Battery <guide>", page=3), Source(n=2, title="Winter")),
    )
    messages = slack_messages(outgoing)
    assert len(messages) >= 3
    for text, blocks in messages:
        assert len(blocks[0]["text"]["text"]) <= SECTION_LIMIT and blocks[0]["text"]["text"] == text
    assert all(len(blocks) == 1 for _, blocks in messages[:-1])
    context = messages[-1][1][-1]
    assert context["type"] == "context"
    assert (
        context["elements"][0]["text"] == "Sources: [1] Battery &lt;guide&gt; (p. 3) · [2] Winter"
    )
    agent = slack_messages(Outgoing(text="Try <b>this</b>", kind="agent", author="Alice"))
    assert agent[0][0] == "*Alice*: Try &lt;b&gt;this&lt;/b&gt;"


def test_an_email_answer_carries_its_sources_as_footnotes() -> None:
    body = email_body(
        Outgoing(
            text="About four hours [1].",
            kind="answer",
            sources=(Source(n=1, title="Charging", page=2),),
        )
    )
    assert body == "About four hours [1].\n\nSources:\n[1] Charging, p. 2"
    assert email_body(Outgoing(text="Hi", kind="agent", author="Alice")) == "Hi\n\n— Alice"


def test_quoted_mail_and_signatures_are_cut_from_a_reply() -> None:
    gmail = "And in winter?\n\nOn Tue, 1 Dec 2026 at 10:00, Lumen <help@lumen.example> wrote:\n> It takes four hours.\n"
    assert email_reply_strip(gmail) == "And in winter?"
    wrapped = (
        "Thanks!\nOn Tue, 1 Dec 2026 at 10:00, Lumen help\n<help@lumen.example> wrote:\n> old\n"
    )
    assert email_reply_strip(wrapped) == "Thanks!"
    outlook = (
        "Sure.\r\n\r\n-----Original Message-----\r\nFrom: Lumen\r\nSent: Tuesday\r\n\r\nold text"
    )
    assert email_reply_strip(outlook) == "Sure."
    french = (
        "Merci !\n\nLe mar. 1 déc. 2026 à 10:00, Lumen <help@lumen.example> a écrit :\n> ancien"
    )
    assert email_reply_strip(french) == "Merci !"
    signed = "Is it waterproof?\n-- \nJane Rider\n+33 1 23 45 67 89"
    assert email_reply_strip(signed) == "Is it waterproof?"
    assert email_reply_strip("> only a quote") == "> only a quote"  # nothing new: the whole text
