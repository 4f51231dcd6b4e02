#!/usr/bin/env bash
# Keeps the plugin's includes running one way (issue 67; the map is in docs/ARCHITECTURE.md, "Where things are"):
# - the layers: core, then bake and bullet (neither includes the other), then the engine adapter, then its samples;
# - plugin/core's concept folders: base, geometry, model, bounds and dynamics, queries, contacts and pieces, asset.
#   A file includes its own folder and those ranked below it, never a higher one or another of its rank;
# - plugin/bullet: the shape and its solver hooks, then the contact points and their manifolds
#   (plugin/bullet/manifold), then the narrowphase's leaf files (plugin/bullet/narrowphase), then its dispatcher
#   (ContactGeneration, DeformableCollisionAlgorithm), then the registration (CreateFunctions,
#   CollisionRegistration, ParallelDispatcher), then CollisionConfiguration: nothing includes a later group;
# - the product never includes a forwarding header (plugin/include/bdt/core/*.h, kept for hosts for one version).
# Fails naming each include that breaks a rule.
#
# Usage: check_include_direction.sh ROOT
#   ROOT  a tree with plugin/ and engine_adapter/ (the repository, or a fixture)
# Bash and POSIX awk only (mawk, the Debian default, runs it).
set -u

if [ $# -ne 1 ] || [ ! -d "$1" ]; then
  echo "usage: $0 ROOT" >&2
  exit 2
fi
ROOT=$1
FILES=()
while IFS= read -r file; do
  FILES+=("$file")
done < <(cd "$ROOT" && find plugin engine_adapter \( -name '*.cpp' -o -name '*.h' \) -type f 2>/dev/null | LC_ALL=C sort)
if [ ${#FILES[@]} -eq 0 ]; then
  echo "error: no sources under $ROOT/plugin or $ROOT/engine_adapter" >&2
  exit 2
fi

(cd "$ROOT" && awk '
  BEGIN {
    layer_rank["core"] = 0; layer_rank["bake"] = 1; layer_rank["bullet"] = 1
    layer_rank["adapter"] = 2; layer_rank["samples"] = 3
    split("base:0 geometry:1 model:2 bounds:3 dynamics:3 queries:4 contacts:5 pieces:5 asset:6", pairs, " ")
    for (i in pairs) { split(pairs[i], kv, ":"); core_rank[kv[1]] = kv[2] + 0 }
    split("DeformableShape:0 DeformableShapeSettings:0 ShapeSolver:0 PieceMemory:0 ContactFeature:0 Conversions:0 " \
          "ContactGeneration:3 DeformableCollisionAlgorithm:3 CreateFunctions:4 CollisionRegistration:4 " \
          "ParallelDispatcher:4 CollisionConfiguration:5", pairs, " ")
    for (i in pairs) { split(pairs[i], kv, ":"); bullet_rank[kv[1]] = kv[2] + 0 }
    bullet_group[0] = "the shape"; bullet_group[1] = "the manifolds"; bullet_group[2] = "the narrowphase leaves"
    bullet_group[3] = "the narrowphase dispatcher"; bullet_group[4] = "the registration"; bullet_group[5] = "the configuration"
    failed = 0
  }
  function base_name(p) { sub(/^.*\//, "", p); sub(/\.(h|cpp)$/, "", p); return p }
  # Classifies a path (a file of the tree, or an include resolved to one): sets unit_layer, unit_concept and
  # unit_rank; unit_layer "" for what the rules do not cover (system, Bullet, Eigen, tests).
  function classify(p,    parts, n, name) {
    unit_layer = ""; unit_concept = ""; unit_rank = 0; unit_forwarder = 0
    sub(/^plugin\/include\/bdt\//, "plugin/", p); sub(/^engine_adapter\/include\/bdt\/adapter\//, "engine_adapter/src/", p)
    sub(/^bdt\/adapter\//, "engine_adapter/src/", p); sub(/^bdt\//, "plugin/", p)
    if (p ~ /^(core|bake|bullet)\//) p = "plugin/" p
    if (p ~ /^samples\//) p = "engine_adapter/" p
    n = split(p, parts, "/")
    if (parts[1] == "plugin" && parts[2] == "core") {
      unit_layer = "core"
      if (n == 3) { unit_forwarder = 1; unit_concept = "(forwarding)"; return }
      unit_concept = parts[3]
      if (!(unit_concept in core_rank)) { unit_concept = "?" parts[3]; unit_rank = -1; return }
      unit_rank = core_rank[unit_concept]; return
    }
    if (parts[1] == "plugin" && parts[2] == "bake") { unit_layer = "bake"; return }
    if (parts[1] == "plugin" && parts[2] == "bullet") {
      unit_layer = "bullet"; name = base_name(p)
      if (name in bullet_rank) unit_rank = bullet_rank[name]
      else if (parts[3] == "manifold") unit_rank = 1
      else if (parts[3] == "narrowphase") unit_rank = 2
      else { unit_rank = -1; unit_concept = "?" name; return }
      unit_concept = bullet_group[unit_rank]; return
    }
    if (parts[1] == "engine_adapter" && parts[2] == "samples") { unit_layer = "samples"; return }
    if (parts[1] == "engine_adapter") { unit_layer = "adapter"; return }
  }
  function fail(msg) { printf "%s:%d: %s\n", FILENAME, FNR, msg; failed = 1 }
  FNR == 1 {
    classify(FILENAME)
    file_layer = unit_layer; file_concept = unit_concept; file_rank = unit_rank; file_forwarder = unit_forwarder
    dir = FILENAME; sub(/\/[^\/]*$/, "", dir)
    if (file_rank < 0)
      fail("not in a concept of the include rules (" file_concept "): add it to check_include_direction.sh and the map")
  }
  /^[ \t]*#[ \t]*include[ \t]*[<"]/ {
    if (file_forwarder || file_rank < 0) next
    target = $0; sub(/^[^<"]*[<"]/, "", target); sub(/[>"].*$/, "", target)
    quoted = ($0 ~ /#[ \t]*include[ \t]*"/)
    if (quoted && target !~ /\//) target = dir "/" target
    classify(target)
    if (unit_layer == "") next
    if (unit_forwarder) { fail("includes " target ", a forwarding header kept for hosts: include the moved header"); next }
    if (unit_layer != file_layer) {
      if (layer_rank[unit_layer] >= layer_rank[file_layer])
        fail("includes " target " (layer " unit_layer ") from layer " file_layer ": layers include only those below them")
      next
    }
    if (file_layer == "core" && unit_concept != file_concept && unit_rank >= file_rank)
      fail("includes " target " (concept " unit_concept ") from concept " file_concept \
           ": a concept includes only those ranked below it")
    if (file_layer == "bullet" && unit_rank > file_rank)
      fail("includes " target " (" unit_concept ") from " file_concept ": plugin/bullet includes only its earlier groups")
  }
  END {
    if (failed) { print "include direction: FAILED"; exit 1 }
    printf "include direction: %d files, every include runs down\n", files
  }
  FNR == 1 { files++ }
' "${FILES[@]}")
