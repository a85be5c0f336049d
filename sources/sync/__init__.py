"""The sync engine: a source's pages discovered, fetched with what the last sync remembered, compared
by their text, ingested, replaced or retired through rag's services (`sync_run`, sources.sync.runner).
Modules: frontier (what is left, deduplicated), outcomes (one page's decision and record), duplicates
(exact and near copies), documents (rag's services for a page), retire (what is demonstrably gone)."""
