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
    install_requires=["fissix>=21.11.13", "six"],
    extras_require={"test": ["pytest", "hypothesis"]},
    entry_points={"console_scripts": ["cglint = cglint.cli:main"]},
    classifiers=[
        "Programming Language :: Python :: 3",
        "Topic :: Software Development :: Quality Assurance",
    ],
)
