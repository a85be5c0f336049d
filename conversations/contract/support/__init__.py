"""The support check (issue 50): every fact of an LLM answer found in the passages given to the model,
and each sentence stating facts supported as a whole, before the visitor sees it.

- `numbers`: numbers in words and digits, units and currencies (text2num, babel's CLDR data);
- `facts`: the facts of a sentence and the keys of a passage (phonenumbers, babel's month names);
- `check`: one verdict per sentence, on plain data;
- `apply`: the verdicts applied to an answer under enforcement, following the bot's strictness.
"""
