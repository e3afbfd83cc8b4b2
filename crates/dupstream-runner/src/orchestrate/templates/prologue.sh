set -euo pipefail
@modules@
@setup@
