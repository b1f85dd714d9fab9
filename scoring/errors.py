"""Every error the scoring library raises for a caller to catch, in one place (the public face of
:mod:`scoring._errors`, where each is defined; importing this module loads nothing else)::

    from scoring.errors import EndpointUnavailableError, MetricError
    try:
        outcome = score_file("results.jsonl", "scored.jsonl", metric="exact")
    except MetricError as exc: ...

ClientError                      base of every error the endpoint client raises on purpose
├── PermanentRequestError        a 4xx no retry can fix; ``.status``, ``.message``
├── TransientError               one failed attempt worth retrying
│   ├── RetryableStatusError     429, 408, 409, 425 or 5xx; ``.retry_after``
│   ├── MalformedResponseError   a 2xx whose body is not a chat completion
│   └── StreamError              a stream that reported an error in the middle
├── ReplyTooLargeError           a reply past its bound; ``.limit``
├── RequestNotSent               the run is stopping: this request was never sent
├── RetriesExhaustedError        every attempt failed; ``.cause``, ``.attempts``
├── EndpointUnavailableError     the endpoint cannot serve: the run stops; ``.status``, ``.hint``, ``.kind``
│   └── JudgeUnavailableError    the same, met by the LLM judges; ``.bought``, ``.reused``
└── OutputLockedError            another run holds the output's lock; ``.pid``
RunInterrupted                   the run was stopped by a signal (SIGTERM); ``.signal``
EndpointSetupError               (ValueError) no request can be built: a base URL or an API key that cannot be sent
└── ProxyUnsupportedError        a SOCKS proxy in the environment without httpx's SOCKS support; ``.variable``
JudgeSetupError                  (ValueError) the judge cannot start: bad option, template or --against file
MetricError                      (ValueError) a metric that is neither built in nor ``module:function``
ResultsFileError                 (ValueError) a results file that is not canonical jsonl
MergeError                       (ValueError) shard parts that do not make the whole input; ``.problems``
BadLabelsError                   (ValueError) people's labels that cannot be used (judge-check, score); ``.problems``
AnsweredSetError                 (ValueError) eval's sets already hold another model's replies; ``.datasets``
OtherModelResultsError           (ValueError) an eval directory holding another model's results; ``.held``
PricesError                      (ValueError) a --prices file that cannot be read or does not price the model
ScoringWorkerError               (RuntimeError) a scoring worker process failed; nothing was written
"""

from scoring._errors import (
    AnsweredSetError,
    BadLabelsError,
    ClientError,
    EndpointSetupError,
    EndpointUnavailableError,
    JudgeSetupError,
    JudgeUnavailableError,
    MalformedResponseError,
    MergeError,
    MetricError,
    OtherModelResultsError,
    OutputLockedError,
    PermanentRequestError,
    PricesError,
    ProxyUnsupportedError,
    ReplyTooLargeError,
    RequestNotSent,
    ResultsFileError,
    RetriesExhaustedError,
    RetryableStatusError,
    RunInterrupted,
    ScoringWorkerError,
    StreamError,
    TransientError,
)

__all__ = [
    "AnsweredSetError",
    "BadLabelsError",
    "ClientError",
    "EndpointSetupError",
    "EndpointUnavailableError",
    "JudgeSetupError",
    "JudgeUnavailableError",
    "MalformedResponseError",
    "MergeError",
    "MetricError",
    "OtherModelResultsError",
    "OutputLockedError",
    "PermanentRequestError",
    "PricesError",
    "ProxyUnsupportedError",
    "ReplyTooLargeError",
    "RequestNotSent",
    "ResultsFileError",
    "RetriesExhaustedError",
    "RetryableStatusError",
    "RunInterrupted",
    "ScoringWorkerError",
    "StreamError",
    "TransientError",
]
