// Moved to <bdt/core/queries/TreeQueries.h> (README "Changes"); this forwarding header goes in the next version.
#pragma once
#include <bdt/core/queries/TreeQueries.h>
