// Moved to <bdt/core/model/ProceduralShapes.h> (README "Changes"); this forwarding header goes in the next version.
#pragma once
#include <bdt/core/model/ProceduralShapes.h>
