"""The domain model, document ids, the error root, Markdown parsing and redaction: no I/O."""
