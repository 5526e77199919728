from perfmodel.cli.app import main

main()
