"""The support check's reading of facts (conversations/contract/support): numbers in digits and in
words, units, amounts, dates, contacts and names, in the six languages the product speaks, and the
same fact written another way found in a passage."""

from __future__ import annotations

import pytest

from conversations.contract.support.check import SupportPassage, answer_check
from conversations.contract.support.facts import facts_of, passage_keys
from conversations.contract.support.numbers import candidate_values, digits_of_words


def _found(answer: str, answer_language: str, passage: str, passage_language: str) -> bool:
    held = passage_keys(passage, passage_language)
    return all(fact.keys & held for fact in facts_of(answer, answer_language))


@pytest.mark.parametrize(
    ("language", "text", "digits"),
    [
        ("en", "fourteen days", "14 days"),
        ("en", "two hundred and fifty euros", "250 euros"),
        ("fr", "quatorze jours", "14 jours"),
        ("fr", "mille cinq cents euros", "1500 euros"),
        ("de", "vierzehn Tage", "14 Tage"),
        ("de", "zweihundertfünfzig Euro", "250 Euro"),
        ("es", "catorce días", "14 días"),
        ("it", "quattordici giorni", "14 giorni"),
        ("pt", "catorze dias", "14 dias"),
    ],
)
def test_numbers_in_words_become_digits_in_six_languages(
    language: str, text: str, digits: str
) -> None:
    assert digits_of_words(text, language) == digits


@pytest.mark.parametrize(
    ("token", "values"),
    [
        ("1,500", {1500.0, 1.5}),
        ("1 500", {1500.0}),
        ("1.500,50", {1500.5}),
        ("1,500.50", {1500.5}),
        ("2,5", {2.5, 2500.0} - {2500.0}),
        ("6½", {6.5}),
    ],
)
def test_written_numbers_read_every_way_their_separators_allow(
    token: str, values: set[float]
) -> None:
    assert set(candidate_values(token)) == values


@pytest.mark.parametrize(
    ("answer", "answer_language", "passage", "passage_language"),
    [
        ("You have 14 days.", "en", "Returns are accepted within fourteen days.", "en"),
        ("You have two weeks.", "en", "Returns are accepted within 14 days.", "en"),
        ("Vous avez deux semaines.", "fr", "Returns are accepted within 14 days.", "en"),
        ("Sie haben vierzehn Tage Zeit.", "de", "Returns are accepted within 2 weeks.", "en"),
        ("Tiene catorce días.", "es", "Le délai est de 14 jours.", "fr"),
        ("Ha quattordici giorni.", "it", "Die Frist beträgt 14 Tage.", "de"),
        ("Tem catorze dias.", "pt", "Returns are accepted within 14 days.", "en"),
        ("It costs €1,500.", "en", "Le prix est de 1 500 €.", "fr"),
        ("Es kostet 1.500 Euro.", "de", "It costs €1,500.", "en"),
        ("Call +33 6 12 34 56 78.", "en", "Appelez le 06 12 34 56 78.", "fr"),
        ("It opened on 12 March 2024.", "en", "Ouverture le 12 mars 2024.", "fr"),
        ("Eröffnung am 12. März 2024.", "de", "It opened on 2024-03-12.", "en"),
        ("Apertura el 12 de marzo de 2024.", "es", "Opened on 12/03/2024.", "en"),
        (
            "Write to help@acme.example or see https://acme.example/returns.",
            "en",
            "Contact: HELP@acme.example, www.acme.example/returns/",
            "en",
        ),
        ("A discount of 25%.", "en", "Une remise de 25 %.", "fr"),
    ],
)
def test_a_fact_written_another_way_is_found(
    answer: str, answer_language: str, passage: str, passage_language: str
) -> None:
    assert facts_of(answer, answer_language)
    assert _found(answer, answer_language, passage, passage_language)


@pytest.mark.parametrize(
    ("answer", "language", "passage"),
    [
        ("You have 72 hours.", "en", "Approval is needed 48 hours ahead."),
        ("You have three weeks.", "en", "Returns are accepted within 14 days."),
        ("Sie haben einundzwanzig Tage.", "de", "Returns are accepted within 14 days."),
        ("It costs €1,600.", "en", "Le prix est de 1 500 €."),
        ("Call +33 6 12 34 56 79.", "en", "Appelez le 06 12 34 56 78."),
        ("It opened on 13 March 2024.", "en", "Ouverture le 12 mars 2024."),
        ("It opened in April.", "en", "Ouverture le 12 mars 2024."),
        ("It costs 1,500 dollars.", "en", "Le prix est de 1 500 €."),
    ],
)
def test_a_changed_fact_is_not_found(answer: str, language: str, passage: str) -> None:
    assert not _found(answer, language, passage, "fr" if "Le " in passage[:4] else "en")


def _passage(text: str, language: str = "en") -> SupportPassage:
    return SupportPassage(chunk_id="c1", text=text, language=language, units=(text,))


def test_the_issue_examples_are_caught_by_their_facts() -> None:
    passage = _passage(
        "Remote work needs manager approval 48 hours ahead. Employees may work remotely up to "
        "two days a week."
    )
    wrong = answer_check(
        answer="Remote work needs manager approval 72 hours ahead.",
        language="en",
        passages=[passage],
    )
    assert [(v.supported, v.kind, v.fact) for v in wrong] == [(False, "quantity", "72")]
    appended = answer_check(
        answer="Remote work needs approval 48 hours ahead, and you can work remotely five days a week.",
        language="en",
        passages=[passage],
    )
    assert not appended[0].supported and appended[0].fact == "5"


@pytest.mark.parametrize(
    "answer",
    [
        "",
        "Sure, I can help with that.",
        "1 2 3 4 5 6 7 8 9 " * 300,
        "Here is the answer. " * 600,
        "Die Frist beträgt vierzehn Tage.",
        "The date is 2024-03-12, or 12.03.2024, or ١٢ مارس ٢٠٢٤, or 令和6年3月12日.",
    ],
)
def test_bad_input_never_raises(answer: str) -> None:
    table = "| Plan | Price | Days |\n|---|---|---|\n| Basic | 10 € | 14 |\n| Pro | 20 € | 30 |"
    verdicts = answer_check(answer=answer, language="de", passages=[_passage(table, "en")])
    assert all(v.sentence for v in verdicts)


def test_an_answer_without_facts_passes_untouched() -> None:
    verdicts = answer_check(
        answer="Sure, I can help with that. Let me know if you need anything else.",
        language="en",
        passages=[_passage("Returns are accepted within 14 days.")],
    )
    assert verdicts and all(v.supported for v in verdicts)


def test_a_table_chunk_supports_its_cells() -> None:
    table = "| Plan | Price | Days |\n|---|---|---|\n| Basic | 10 € | 14 |\n| Pro | 20 € | 30 |"
    verdicts = answer_check(
        answer="The Pro plan costs 20 € for 30 days.", language="en", passages=[_passage(table)]
    )
    assert all(v.supported for v in verdicts), verdicts


def test_citation_markers_state_nothing_and_degrees_read_as_celsius() -> None:
    verdicts = answer_check(
        answer="No: do not charge it below 0 °C [1].",
        language="en",
        passages=[_passage("Do not charge a battery below 0 degrees.")],
    )
    assert all(v.supported for v in verdicts), verdicts
