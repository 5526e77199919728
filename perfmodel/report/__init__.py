"""Markdown reports with figures: specifications (spec), the document and its markdown (doc),
deterministic figures (plot), the section builders (network, links, apps) and the build."""
