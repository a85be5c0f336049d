"""The kinds of source (website, Git repository), each behind the one interface of `base`."""
