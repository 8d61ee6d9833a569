"""Planning: a recipe (`recipe`: the data and the Workspace/StepResult contract), loaded and
validated once (`loader`), run as uniform stages (`stages`) by the planner (`planner`), which
gates each file and checks references (`references`) and prose (`reword`, `scope`); `root`
says whether ROOT is the tree a recipe works on. Nothing here writes."""
