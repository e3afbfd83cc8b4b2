set -euo pipefail
@modules@
@setup@
# The revision the parts record (compute nodes may have no checkout).
export DUPSTREAM_GIT_REVISION=@rev_quoted@
