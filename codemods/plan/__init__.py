"""Planning: a recipe (its data and loader are `codemods.config`'s) run as uniform stages
(`stages`) by the planner (`planner`), which gates each file and checks references
(`references`) and prose (`reword`, `scope`); `root` says whether ROOT is the tree a recipe
works on. Nothing here writes."""
