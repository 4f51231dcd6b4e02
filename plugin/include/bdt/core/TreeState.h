// Moved to <bdt/core/bounds/TreeState.h> (README "Changes"); this forwarding header goes in the next version.
#pragma once
#include <bdt/core/bounds/TreeState.h>
