"""What every layer shares: files written whole (`atomic`), folders and files this toolkit owns (`owned`, `staging`),
JSON Lines and text sources read with file/row/field errors (`records`), argument types (`arg_types`), a count
with its noun (`plurals`), and the errors a user causes (`errors`, `user_errors`). It imports nothing of the toolkit's
other packages."""
