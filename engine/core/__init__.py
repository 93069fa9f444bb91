"""Core types: trace, results, the Check base and JSONPath selectors."""
