"""The Gradio Space: arena votes, checklist annotation and a live leaderboard over the installed package."""
