"""Rule-based metrics: choice, exact, math."""
