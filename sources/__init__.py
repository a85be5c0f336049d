"""Knowledge sources: websites and Git repositories of docs, each owning the documents it made and
keeping them true to the source on every sync."""
