#pragma once

#include <bdt/core/model/ProceduralShapes.h>

namespace bdt::bench
{

/// The BD-Tree paper's curtain mesh at exactly its Table 1 size, 6184 vertices and 12020 faces: a hanging
/// cloth 1 m wide (x) and 2.5 m tall (y, top edge at y = 1.25), a 49 × 125 vertex grid (cells about 2 cm),
/// plus a 59-vertex tab down the top of its right edge (so that V − E + F and both counts match the paper's).
/// Vertical folds of 3 cm in z; counter-clockwise seen from +z. Row 0 (y = 1.25) is the top edge.
ShapeMesh MakePaperCurtain();

} // namespace bdt::bench
