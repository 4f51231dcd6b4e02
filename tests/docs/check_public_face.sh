#!/usr/bin/env bash
# Usage: check_public_face.sh ROOT
# The installed DeformableShape keeps a public face a user can hold in mind (issue 54): at most 35 public
# methods (overloads counted one by one), and none of the step's solver hooks (plugin/bullet/ShapeSolver.h)
# in any installed header. Prints the count and each hook found; exits non-zero above the limit.
set -euo pipefail
root=${1:?usage: check_public_face.sh ROOT}
header="$root/plugin/include/bdt/bullet/DeformableShape.h"
limit=35
[ -f "$header" ] || { echo "check_public_face: $header: not found" >&2; exit 2; }

# Declarations in the class's public section: a line, not a comment, that opens a parameter list.
count=$(awk '
  /^ATTRIBUTE_ALIGNED16\(class\) DeformableShape/ { inClass = 1 }
  inClass && /^public:/ { pub = 1; next }
  inClass && /^(private|protected):/ { pub = 0 }
  inClass && /^};/ { inClass = 0 }
  pub && !/^[[:space:]]*\/\// && /[A-Za-z_~][A-Za-z_0-9]*\(/ && !/BT_DECLARE_ALIGNED_ALLOCATOR/ { n++ }
  END { print n + 0 }' "$header")
echo "DeformableShape.h: $count public methods (limit $limit)"
status=0
if [ "$count" -gt "$limit" ]; then
  echo "$header: $count public methods, over the limit of $limit" >&2
  status=1
fi

# The solver hooks: declared in ShapeSolver.h alone.
hooks='PredictStep|ProxyResponse|ResponseRows|StepBase|StepHeldCompliance|StepChangeCompliance|ProxyCoupling|ModalVelocityAlong|ModalMobilityAlong|AccumulateImpulse|AddContactImpulse|AddCouplingImpulse|ApplyModalImpulse|FlushImpulses|PendingImpulse|ClearImpulses|ClearPrediction'
while IFS= read -r hit; do
  echo "$hit: a solver hook in an installed header (it belongs in plugin/bullet/ShapeSolver.h)" >&2
  status=1
done < <(grep -rnE "^[^/]*\b($hooks)\(" "$root/plugin/include" "$root/engine_adapter/include" || true)
exit $status
