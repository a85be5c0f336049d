"""Size limits of a Rag prompt context, shared by the models, the admin forms and the JSON import."""

TOPIC_NAME_MAX = 80
TOPICS_MAX = 60
TERM_MAX = 80
TERMS_PER_GROUP_MIN = 2
TERMS_PER_GROUP_MAX = 30
DEFINITION_MAX = 500
LEXICON_GROUPS_MAX = 200
IMPORT_MAX_BYTES = 512 * 1024
