"""What the report renders: text, Markdown, JSON, HTML and the workbook, from the figures."""
