"""The record contract: what a run writes and everything that reads it relies on.

The harness writes these records and the leaderboards read them, so they sit below both: the
per-round and final records (`schema`), the files of a run directory and how they are read
(`run_files`), the stored answers and how they are judged (`answers`, `scoring`),
MAPF-FrozenLake's counts checked against its own verdicts (`tally_problem`, from its task
package), the machine a run computed on (`machine`), a round's training in numbers
(`training_summary`), the design steps' tally (`design_tally`), the experiment as recorded
(`recorded_experiment`) and the paper's headline "Sum" (`headline`). This package imports only
`tasks`, `mapf_env` and `designers`; a reader of records never needs the harness installed with
its backends, and a change to the contract is a change to one place.
"""

from run_records.answers import (
    ANSWERS_DIR,
    MAX_ANSWERS_BYTES,
    AnswersError,
    InstanceAnswers,
    SuiteAnswers,
    answers_blob,
    answers_file,
    decode_answers,
    encode_answers,
    read_answers,
    write_answers,
)
from run_records.config_diff import first_difference
from run_records.design_tally import DesignTally, tally_design_steps
from run_records.headline import SUM_HEADER, SuiteSum, pct, size_mean
from run_records.machine import (
    PINNED,
    MachineRecord,
    Precision,
    cpu_flags,
    current_machine,
    describe_machine,
    native_bf16,
    over_rounds,
    pin_cpu_kernels,
    unpin_cpu_kernels,
)
from run_records.reasons import reason_text
from run_records.recorded_experiment import RecordedExperiment
from run_records.request_failures import RequestFailures
from run_records.run_files import (
    CHECKPOINT_DIR,
    CONFIG_FILE,
    FAILURE_FILE,
    POLICIES_DIR,
    RESULT_FILE,
    ROUND_FILE,
    RUN_FILE,
    RunDirError,
    RunFileError,
    RunStamp,
    RunStatus,
    check_round,
    count_rounds,
    one_line,
    parse_run_file,
    read_failure,
    read_result,
    read_round,
    read_stamp,
    round_error,
    run_records_of,
    run_status,
    safe_name,
    sha256_file,
    vouched_files,
)
from run_records.schema import (
    OVERHEAD_SHARES,
    RESULT_SCHEMA_VERSION,
    FailureRecord,
    LoadKind,
    ModelLoad,
    ResultRecord,
    RoundResult,
    RoundTimings,
    stamp,
)
from run_records.scoring import ScoredSuite, score_answers, store_scored
from run_records.task_records import TaskRecords, recorded_task, task_records
from run_records.training_summary import DETAIL_KEYS, TrainingSummary, TrainStep, summarise
from tasks.mapf_frozenlake.records import InstanceVerdict, SuiteResult
from tasks.mapf_frozenlake.tallies import COUNT_FIELDS, tally_problem, verdict_reports

__all__ = [
    "ANSWERS_DIR",
    "CHECKPOINT_DIR",
    "CONFIG_FILE",
    "COUNT_FIELDS",
    "DETAIL_KEYS",
    "FAILURE_FILE",
    "MAX_ANSWERS_BYTES",
    "OVERHEAD_SHARES",
    "PINNED",
    "POLICIES_DIR",
    "RESULT_FILE",
    "RESULT_SCHEMA_VERSION",
    "ROUND_FILE",
    "RUN_FILE",
    "SUM_HEADER",
    "AnswersError",
    "DesignTally",
    "FailureRecord",
    "InstanceAnswers",
    "InstanceVerdict",
    "LoadKind",
    "MachineRecord",
    "ModelLoad",
    "Precision",
    "RecordedExperiment",
    "RequestFailures",
    "ResultRecord",
    "RoundResult",
    "RoundTimings",
    "RunDirError",
    "RunFileError",
    "RunStamp",
    "RunStatus",
    "ScoredSuite",
    "SuiteAnswers",
    "SuiteResult",
    "SuiteSum",
    "TaskRecords",
    "TrainStep",
    "TrainingSummary",
    "answers_blob",
    "answers_file",
    "check_round",
    "count_rounds",
    "cpu_flags",
    "current_machine",
    "decode_answers",
    "describe_machine",
    "encode_answers",
    "first_difference",
    "native_bf16",
    "one_line",
    "over_rounds",
    "parse_run_file",
    "pct",
    "pin_cpu_kernels",
    "read_answers",
    "read_failure",
    "read_result",
    "read_round",
    "read_stamp",
    "reason_text",
    "recorded_task",
    "round_error",
    "run_records_of",
    "run_status",
    "safe_name",
    "score_answers",
    "sha256_file",
    "size_mean",
    "stamp",
    "store_scored",
    "summarise",
    "tally_design_steps",
    "tally_problem",
    "task_records",
    "unpin_cpu_kernels",
    "verdict_reports",
    "vouched_files",
    "write_answers",
]
