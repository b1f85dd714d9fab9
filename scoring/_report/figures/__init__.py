"""What the report computes: aggregation, intervals, paired tests, ratings, the models side by side."""
