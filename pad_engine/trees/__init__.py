"""Trees and what is read off them: d-parses, lexicalized c-parses, head tables,
binarization, lifting, edits. Pure Python; nothing here decodes or learns."""
