"""rag's side of the embedding models (textmodels.embeddings): the background backfill of its chunks'
multilingual vectors."""
