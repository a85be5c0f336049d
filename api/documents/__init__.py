"""The documents endpoints: upload or write documents, list and read their ingestion state, re-run, attach, delete.

Views (``views.py``) parse with the serializers (``serializers.py``) and call the services
(``services.py``), which check every referenced bot and conversation through ``api.access``
before handing the files to ``rag.services``.
"""
