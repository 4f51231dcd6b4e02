// Moved to <bdt/core/geometry/Primitives.h> (README "Changes"); this forwarding header goes in the next version.
#pragma once
#include <bdt/core/geometry/Primitives.h>
