"""mcts_bot: Monte Carlo Tree Search for botbowl (Blood Bowl).

botbowl is not on the package registry: `scripts/run.sh` installs it first (from a local wheel
directory when there is one, else from GitHub), then installs this package.
"""
from setuptools import find_packages, setup

setup(
    name="mcts_bot",
    version="0.1.0",
    description="Monte Carlo Tree Search bot for botbowl, the Blood Bowl AI framework",
    long_description=open("README.md", encoding="utf-8").read(),
    long_description_content_type="text/markdown",
    packages=find_packages(include=["mcts_bot", "mcts_bot.*"]),
    package_data={"mcts_bot.knowledge": ["models/*.npz"]},  # the learned values, one per board size
    python_requires=">=3.9",
    # The search reads botbowl's procedures and forward model, so a botbowl outside 1.1.x is untested.
    install_requires=["botbowl~=1.1.0", "numpy", "tqdm"],
    extras_require={
        "test": ["pytest", "pytest-xdist", "matplotlib", "selenium"],  # the Ray backend's test also needs the ray extra
        "plot": ["matplotlib"],
        "ray": ["ray"],
    },
    license="Apache-2.0",
)
