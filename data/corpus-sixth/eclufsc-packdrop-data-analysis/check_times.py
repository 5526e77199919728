"""Check this folder's CSV rows against their raw files with the rules of ../check_times.py
(the shared walk of data/check_rows.py): time_s in the raw file at the row's commit, in its own
context, and the commit the last to touch the file at the snapshot.
Usage: python check_times.py MIRROR_ROOT   (e.g. /work/.mirror)
"""
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))
sys.path.insert(0, str(HERE.parent))
from check_rows import check  # noqa: E402
from check_times import MIRROR, Only, in_context  # noqa: E402  (../check_times.py)

if __name__ == '__main__':
    sys.exit(check(Only(HERE), MIRROR, in_context))
