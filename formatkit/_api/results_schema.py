"""The JSON Schema of ``formatkit report --format json`` (written by scoring; described here as data, since
formatkit never imports scoring). Published as ``schemas/report-results.schema.json``."""

from __future__ import annotations

__all__ = ["report_results_schema"]

_SCORE: dict[str, object] = {"type": ["number", "null"], "description": "0-100 (pairwise mean x100: -100..100)"}
_CI: dict[str, object] = {
    "type": ["array", "null"],
    "items": {"type": "number"},
    "minItems": 2,
    "maxItems": 2,
    "description": "95 % confidence interval [low, high] on the score's scale",
}
_METHOD: dict[str, object] = {"enum": ["wilson", "bootstrap", None]}
_USAGE: dict[str, object] = {
    "type": "object",
    "properties": {k: {"type": "integer"} for k in ("prompt_tokens", "completion_tokens", "total_tokens")},
}
_DATASET: dict[str, object] = {
    "type": "object",
    "required": ["metric", "score", "records", "errors"],
    "properties": {
        "metric": {"type": ["string", "null"]},
        "score": _SCORE,
        "ci": _CI,
        "interval": _METHOD,
        "records": {"type": "integer"},
        "errors": {"type": "integer", "description": "responses that could not be scored"},
        "scored_records": {"type": "integer"},
        "responses": {"type": "integer"},
        "scored_responses": {"type": "integer"},
        "strict": _SCORE,
        "loose": _SCORE,
        "dimension": {"type": ["string", "null"]},
        "usage": _USAGE,
        "judge_usage": _USAGE,
        "samples": {"type": "integer"},
        "pass_at_k": _SCORE,
        "majority": _SCORE,
        "unsettled": {"type": "integer"},
        "void": {"type": "integer", "description": "void judge verdicts (a reply with no readable verdict)"},
        "void_as_zero": {"type": "boolean", "description": "void verdicts were counted as the lowest score"},
        "small": {"type": "boolean", "description": "fewer than 30 scored records"},
        "pairwise": {"type": "object", "description": "win / tie / loss, mean_x100, pairs judged in both orders"},
        "win_rate": {
            **_SCORE,
            "description": "pairwise only: 0-100 win rate (win 1, tie 0.5, loss 0), enters the dimension",
        },
        "win_rate_ci": _CI,
        "note": {"type": "string"},
        "human_overrides": {
            "type": "object",
            "description": "scores a person gave in a reviewed sheet: responses, score_before (the machine's), "
            "score_after",
        },
        "min_detectable_difference": {
            "type": ["number", "null"],
            "description": "two models or more: the smallest difference (0-100 points) a paired test on the "
            "dataset detects at 80 % power and alpha 0.05",
        },
    },
}
_DIMENSION: dict[str, object] = {
    "type": "object",
    "required": ["score", "datasets"],
    "properties": {
        "score": _SCORE,
        "ci": _CI,
        "interval": _METHOD,
        "datasets": {"type": "array", "items": {"type": "string"}},
    },
}
_MODEL_PROPERTIES: dict[str, object] = {
    "overall": _SCORE,
    "overall_ci": _CI,
    "overall_interval": _METHOD,
    "dimensions": {"type": "object", "additionalProperties": _DIMENSION},
    "datasets": {"type": "object", "additionalProperties": _DATASET},
    "records": {"type": "integer"},
    "errors": {"type": "integer"},
    "void": {"type": "integer", "description": "void judge verdicts over every dataset"},
    "void_as_zero": {"type": "boolean"},
    "usage": _USAGE,
    "judge_usage": _USAGE,
}
_MODEL: dict[str, object] = {
    "type": "object",
    "required": ["overall", "dimensions", "datasets"],
    "properties": _MODEL_PROPERTIES,
}
_COMPARISON: dict[str, object] = {
    "type": "object",
    "required": ["a", "b", "scope", "records", "difference", "ci", "significant"],
    "properties": {
        "a": {"type": "string"},
        "b": {"type": "string"},
        "scope": {"type": "string", "description": "a dataset's name, or overall"},
        "records": {"type": "integer", "description": "records both models answered"},
        "difference": {"type": "number", "description": "a - b in points (0-100 scale)"},
        "ci": _CI,
        "interval": _METHOD,
        "significant": {"type": "boolean", "description": "the interval leaves out 0"},
    },
}


_RATING: dict[str, object] = {
    "type": "object",
    "required": ["rating", "ci"],
    "properties": {
        "rating": {"type": "number", "description": "Bradley-Terry strength on the logit scale, models centred on 0"},
        "ci": _CI,
        "battles": {"type": "integer"},
        "rank": {"type": "integer", "description": "1 + the models a corrected pair test puts ahead (models only)"},
    },
}
_PAIR: dict[str, object] = {
    "type": "object",
    "required": ["a", "b", "scope", "difference", "ci", "p_adjusted", "distinguishable"],
    "properties": {
        "a": {"type": "string"},
        "b": {"type": "string"},
        "scope": {"type": "string", "description": "a dataset's name, or overall"},
        "records": {"type": "integer"},
        "difference": {"type": "number", "description": "a - b in points (0-100 scale)"},
        "ci": {**_CI, "description": "Bonferroni-corrected interval (level 1 - 0.05/family)"},
        "p": {"type": ["number", "null"], "description": "the paired t-test's p-value"},
        "p_adjusted": {"type": ["number", "null"], "description": "Bonferroni-adjusted (family x p, at most 1)"},
        "distinguishable": {"type": "boolean", "description": "exactly when ci leaves out 0"},
        "min_detectable_difference": {"type": ["number", "null"]},
        "verdict": {"enum": ["distinguishable", "set too small to tell", "not distinguishable"]},
        "family": {"type": "integer", "description": "pairs of models tested on the scope"},
    },
}


def report_results_schema() -> dict[str, object]:
    """The report JSON: the first model's figures under today's keys, then every model, the paired
    differences and how the intervals were computed."""
    return {
        "title": "formatkit report --format json",
        "type": "object",
        "required": ["overall", "dimensions", "datasets", "models", "comparisons", "intervals"],
        "properties": {
            **_MODEL_PROPERTIES,
            "model": {"type": ["string", "null"], "description": "the model today's keys describe (the first)"},
            "models": {
                "type": "object",
                "additionalProperties": _MODEL,
                "description": "one entry per model (each response's model, or seed 001's endpoint_id; "
                "'(unknown model)' when none is named); never merged",
            },
            "comparisons": {"type": "array", "items": _COMPARISON},
            "intervals": {
                "type": "object",
                "required": ["level", "note"],
                "properties": {
                    "level": {"type": "number"},
                    "resamples": {"type": "integer"},
                    "seed": {"type": "integer"},
                    "note": {"type": "string"},
                },
            },
            "pairwise_note": {"type": "string"},
            "ratings": {
                "type": "object",
                "additionalProperties": _RATING,
                "description": "two models or more: each model's Bradley-Terry rating (logit scale)",
            },
            "rating_anchors": {
                "type": "object",
                "additionalProperties": _RATING,
                "description": "players rated beside the models: the reference answer of pairwise verdicts",
            },
            "ratings_method": {"type": "object", "description": "scale (logit), method, resamples, seed, battles"},
            "pairs": {"type": "array", "items": _PAIR, "description": "every pair of models per scope"},
            "pairs_note": {"type": "string"},
            "tiers": {
                "type": "array",
                "items": {"type": "object"},
                "description": "models sharing a rank, best first: rank, models, next_pair, more_questions",
            },
            "order_disagreements": {
                "type": "array",
                "items": {"type": "object"},
                "description": "neighbours the rating and the overall order differently: above, below, gaps",
            },
            "power": {
                "type": "object",
                "additionalProperties": {"type": "object"},
                "description": "per dataset: records, paired_sd, min_detectable_difference, pairs, too_small",
            },
            "runs": {
                "type": "object",
                "additionalProperties": {"type": "array", "items": {"type": "object"}},
                "description": "each model's run records (run.json beside its results: formatkit_version, "
                "started, finished, command, base_url, model, parameters, judge; never a key), when the "
                "results files have them",
            },
        },
    }
