"""A citation of a web page opens the page at the quoted sentence (a URL text fragment)."""

from __future__ import annotations

from conversations.citation_links import citation_link


def test_a_short_sentence_is_the_whole_fragment_with_its_syntax_characters_encoded() -> None:
    link = citation_link(
        url="https://docs.example.com/guide/setup?lang=en#install",
        quoted="Run pi-hole -r, then reboot & wait.",
    )
    assert link == (
        "https://docs.example.com/guide/setup?lang=en"
        "#:~:text=Run%20pi%2Dhole%20%2Dr%2C%20then%20reboot%20%26%20wait."
    )


def test_a_long_sentence_is_matched_by_its_first_and_last_words() -> None:
    sentence = (
        "Remote work needs the approval of your manager at least forty eight hours ahead "
        "of the first day you plan to work from home"
    )
    link = citation_link(url="http://intranet.example.com/hr", quoted=sentence)
    assert link == (
        "http://intranet.example.com/hr#:~:text="
        "Remote%20work%20needs%20the%20approval,plan%20to%20work%20from%20home"
    )


def test_no_quote_gives_the_page_and_a_file_name_or_script_gives_no_link() -> None:
    assert citation_link(url="https://example.com/a#b", quoted="  ") == "https://example.com/a"
    assert citation_link(url="handbook.pdf", quoted="Hello.") == ""
    assert citation_link(url="javascript:alert(1)", quoted="Hello.") == ""
