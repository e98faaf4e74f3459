"""The local OpenAI-compatible replay server (stdlib only, so importing it is cheap)."""
from .faults import FaultSchedule, FaultSpecError, parse_faults
from .records import ReplayError, build_records, load_records, write_records
from .replay import make_server, replay_server

__all__ = [
    'FaultSchedule', 'FaultSpecError', 'ReplayError', 'build_records', 'load_records', 'make_server',
    'parse_faults', 'replay_server', 'write_records',
]
